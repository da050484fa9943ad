"""A signed-in person's own settings of the dashboard, theirs alone: the views of its lists
they saved (a list page's filters and order, under a name). They are not workspace data:
a viewer saves views as a manager does, and nobody else sees them. Registered with the
app's models by tenancy.models; written by tenancy.services.saved_views."""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

# A view's name, as the person types it ("Acme disputes, oldest first").
VIEW_NAME_MAX_CHARS = 80
# Its query string: a list's filters and order (a filter form makes far less).
VIEW_QUERY_MAX_CHARS = 2000
# A URL name of a list page ("facts:list").
VIEW_PAGE_MAX_CHARS = 64
# Saved views per person: the command palette lists them all on every page.
SAVED_VIEWS_MAX = 100


class SavedView(models.Model):
    """A list page (``page``, its URL name in either mount) with the query string of its
    filters and order (``query``: only the parameters that page's filter form knows),
    saved by ``user`` under ``name``: one name per person and page, in any case."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_views"
    )
    page = models.CharField(max_length=VIEW_PAGE_MAX_CHARS)
    name = models.CharField(max_length=VIEW_NAME_MAX_CHARS)
    query = models.CharField(max_length=VIEW_QUERY_MAX_CHARS, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["page", "name", "id"]
        constraints = [
            models.UniqueConstraint(
                "user", "page", Lower("name"), name="saved_view_name_unique_per_page"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.page})"
