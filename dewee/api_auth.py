"""Who may call an API operation: a bearer API key with the scope the operation declares.

Every operation names its scope with ``auth=``: ``READ`` (looks: lists, reads, recall,
context, checks), ``WRITE`` (stores and changes) or ``ADMIN`` (bulk erasure, merges, policy
changes, maintenance). The API's default, for an operation that declares none, refuses every
key (and tests/test_api_scopes.py fails on such an operation). The scope is checked when the
key is authenticated, before the body is read, so a refused request writes nothing.

One class per scope, because the OpenAPI document names an operation's security scheme by
its class: the API docs show each operation's scope (ReadKey, WriteKey, AdminKey).
"""

from typing import ClassVar

from django.http import HttpRequest
from ninja.security import HttpBearer

from dewee.limits import check_key_rate
from dewee.replicas import note_key
from tenancy.access import Access, access_for_key
from tenancy.models import Scope
from tenancy.queries import authenticate_api_key


class ApiKeyAuth(HttpBearer):
    scope: ClassVar[Scope | None] = None
    openapi_description = "An API key of no scope: this operation declares none."

    def authenticate(self, request: HttpRequest, token: str) -> Access | None:
        key = authenticate_api_key(token, scope=self.scope)
        if key is None:
            return None
        # A key that wrote lately reads the primary, to read what it wrote (dewee.replicas).
        note_key(key.pk)
        # The key's requests count against its rate (dewee.limits); past it the request
        # is refused 429 before its view runs.
        check_key_rate(request, key_id=str(key.pk))
        return access_for_key(key)


class ReadKey(ApiKeyAuth):
    scope = Scope.READ
    openapi_description = "An API key with the read scope."


class WriteKey(ApiKeyAuth):
    scope = Scope.WRITE
    openapi_description = "An API key with the write scope."


class AdminKey(ApiKeyAuth):
    scope = Scope.ADMIN
    openapi_description = "An API key with the admin scope."


READ = ReadKey()
WRITE = WriteKey()
ADMIN = AdminKey()
UNDECLARED = ApiKeyAuth()
