"""The dashboard's sign-in page: Django's LoginView, with failed attempts limited per
address and per username (dewee.limits)."""

from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.shortcuts import render

from dewee.limits import count_sign_in_failure, sign_in_refusal

_login = LoginView.as_view()


def sign_in(request: HttpRequest) -> HttpResponseBase:
    """Past the failed attempts' limit the password is not even checked: the page says so
    and when to try again (429 with Retry-After). A POST that does not sign in counts as a
    failure."""
    if request.method == "POST" and (refusal := sign_in_refusal(request)) is not None:
        form = AuthenticationForm(request, initial={"username": request.POST.get("username")})
        context = {"form": form, "refusal": refusal.message, "next": request.POST.get("next", "")}
        response = render(request, "registration/login.html", context, status=429)
        response["Retry-After"] = str(refusal.retry_after)
        return response
    answer = _login(request)
    if request.method == "POST" and not request.user.is_authenticated:
        count_sign_in_failure(request)
    return answer
