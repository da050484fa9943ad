"""The dashboard's Facts pages, mounted twice: under /dashboard/ (instance namespace
"facts", for staff) and /app/ ("app", for workspace members). Templates and views reverse
``facts:<name>``, which Django resolves in the instance that served the request."""

from django.urls import path

from facts import views, views_audit, views_check, views_forget, views_review, views_teamwork

app_name = "facts"

urlpatterns = [
    path("review/", views_review.review, name="review"),
    path("review/mine/", views_review.review_mine, name="review_mine"),
    path("review/bulk/", views_review.review_bulk, name="review_bulk"),
    path("review/undo/", views_review.review_undo, name="review_undo"),
    path("review/<int:fact_id>/resolve/", views_review.review_resolve, name="review_resolve"),
    path("review/<int:fact_id>/", views_teamwork.review_panel, name="review_panel"),
    path("review/<int:fact_id>/assign/", views_teamwork.dispute_assign, name="dispute_assign"),
    path("review/<int:fact_id>/snooze/", views_teamwork.dispute_snooze, name="dispute_snooze"),
    path(
        "review/<int:fact_id>/reconfirm/",
        views.review_freshness,
        {"action": "reconfirm"},
        name="review_reconfirm",
    ),
    path("review/<int:fact_id>/end/", views.review_freshness, {"action": "end"}, name="review_end"),
    path("changes/", views.changes, name="changes"),
    path("receipts/<uuid:receipt_id>/", views_forget.receipt_page, name="receipt"),
    path("audit/", views_audit.audit_log, name="audit"),
    path("audit/export/", views_audit.audit_export, name="audit_export"),
    path("audit/receipts/", views_audit.receipts_list, name="receipts"),
    path("facts/", views.facts_list, name="list"),
    path("facts/suggest/", views.suggest, name="suggest"),
    path("facts/export/", views.facts_export, name="export"),
    path("facts/forget/", views_forget.facts_forget, name="forget"),
    path("facts/check/", views_check.check_page, name="check"),
    path("facts/check/preview/", views_check.check_preview, name="check_preview"),
    path("facts/check/apply/", views_check.check_apply, name="check_apply"),
    path("facts/<int:fact_id>/", views.fact_page, name="detail"),
    path("facts/<int:fact_id>/resolve/", views.fact_resolve, name="resolve"),
    path("facts/<int:fact_id>/delete/", views.fact_delete, name="delete"),
    path("facts/<int:fact_id>/restore/", views.fact_restore, name="restore"),
    path("facts/<int:fact_id>/reopen/", views.fact_reopen, name="reopen"),
    path("facts/<int:fact_id>/comment/", views_teamwork.fact_comment, name="comment"),
]
