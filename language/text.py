"""The form two values are compared in, the same for every part of Dewee that compares
what people wrote."""

import unicodedata


def normalise_value(value: str) -> str:
    """Unicode NFKC, case-folded, inner spaces collapsed: "Acme  Corp" and "acme corp" are
    the same value; "Acme" and "Acme Inc" are not."""
    return " ".join(unicodedata.normalize("NFKC", value).casefold().split())
