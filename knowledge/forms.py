"""The person page's forms."""

from django import forms

from facts.models import KEY_MAX_CHARS


class PersonForm(forms.Form):
    """The person page's GET form: one user id, as clients give it (any character)."""

    user = forms.CharField(
        label="User id",
        required=False,
        max_length=KEY_MAX_CHARS,
        strip=True,
        widget=forms.TextInput(attrs={"type": "search", "autocomplete": "off"}),
    )


class ForgetPersonForm(forms.Form):
    """Erasure of everything about one person in the workspace of ``agent`` (the agent the
    operator came from), confirmed by typing the person's user id."""

    agent = forms.CharField(widget=forms.HiddenInput)
    user = forms.CharField(widget=forms.HiddenInput, max_length=KEY_MAX_CHARS, strip=True)
    confirmation = forms.CharField(label="Type it again to confirm", required=False)

    def confirmed(self) -> bool:
        """Checked after the preview is shown, so an empty confirmation is not an error."""
        if self.cleaned_data.get("confirmation", "").strip() == self.cleaned_data["user"]:
            return True
        self.add_error("confirmation", f"Type {self.cleaned_data['user']!r} exactly to erase.")
        return False
