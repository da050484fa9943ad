"""How an erasure receipt names the person it erased without holding their id.

A receipt must prove, later, that a given person's data was erased, yet hold nothing that
identifies them. User ids are short and guessable ("u1", an email address), so a plain
SHA-256 of one is reversed by hashing candidates; an HMAC keyed by this server's secret
cannot be computed without that secret. An operator who is asked again about a person
computes the same digest (:func:`user_digest`) and finds the receipt. Rotating SECRET_KEY
(DEWEE_SECRET_KEY) changes every digest: old receipts then match no one.
"""

from django.utils.crypto import salted_hmac

# The HMAC key is derived from SECRET_KEY with this salt, so the digest cannot be replayed
# against any other use of the secret (sessions, signing).
USER_DIGEST_SALT = "dewee.erasure.user"
# The key a receipt's scope holds the digest under.
USER_DIGEST_KEY = "user_hmac"


def user_digest(user: str) -> str:
    """HMAC-SHA256 of ``user`` (as cleaned by the service that erased it), in hex."""
    return salted_hmac(USER_DIGEST_SALT, user, algorithm="sha256").hexdigest()


def hashed_scope(scope: dict[str, str]) -> dict[str, str]:
    """A forget's scope as a receipt stores it: the user replaced by its digest."""
    return {
        (USER_DIGEST_KEY if key == "user" else key): (
            user_digest(value) if key == "user" else value
        )
        for key, value in scope.items()
    }
