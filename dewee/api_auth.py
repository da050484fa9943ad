"""Who may call an API operation: a bearer API key with the scope the operation declares.

Every operation names its scope with ``auth=``: ``READ`` (looks: lists, reads, recall,
context, checks), ``WRITE`` (stores and changes) or ``ADMIN`` (bulk erasure, merges, policy
changes, maintenance). The API's default, for an operation that declares none, refuses every
key (tests/test_api_scopes.py fails on such an operation). The scope is checked when the key
is authenticated, before the body is read, so a refused request writes nothing.
"""

from django.http import HttpRequest
from ninja.security import HttpBearer

from tenancy.access import Access, access_for_key
from tenancy.models import Scope
from tenancy.queries import authenticate_api_key


class ApiKeyAuth(HttpBearer):
    def __init__(self, scope: Scope | None) -> None:
        super().__init__()
        self.scope = scope

    def authenticate(self, request: HttpRequest, token: str) -> Access | None:
        key = authenticate_api_key(token, scope=self.scope)
        if key is None:
            return None
        return access_for_key(key)


READ = ApiKeyAuth(Scope.READ)
WRITE = ApiKeyAuth(Scope.WRITE)
ADMIN = ApiKeyAuth(Scope.ADMIN)
UNDECLARED = ApiKeyAuth(None)
