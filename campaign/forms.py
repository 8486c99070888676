from django import forms
from django.contrib.auth.forms import UserCreationForm

from campaign.models import NotificationSettings, RevealPolicy
from campaign.selectors import visible_modules
from rules.registry import parse_module


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined]
        fields = ("username",)


class NotificationSettingsForm(forms.Form):
    email = forms.EmailField(
        label="E-mail address",
        required=False,
        max_length=254,  # auth.User.email
        help_text="Optional. Refit e-mails it when a campaign waits for you; nobody else sees it.",
    )
    frequency = forms.ChoiceField(
        label="E-mail me",
        choices=NotificationSettings.Frequency.choices,
        widget=forms.RadioSelect,
    )


def cg_choices(user: object) -> list[tuple[str, list[tuple[str, str]]]]:
    """Module / variant choices grouped by module, values 'module/variant', of the
    modules ``user`` may host (a private one says whose it is)."""
    out = []
    for record in visible_modules(user):
        module = parse_module(record.checksum, record.data)
        title = module.title if record.public else f"{module.title} (private module)"
        out.append(
            (title, [(f"{record.id}/{v.id}", f"{title} — {v.name}") for v in module.variants])
        )
    return out


class CreateCampaignForm(forms.Form):
    name = forms.CharField(max_length=120, help_text="What you and your opponent call it.")
    # Choosing another CG re-renders only the side list (htmx), keeping what was typed.
    cg = forms.ChoiceField(
        label="Campaign game",
        choices=(),
        widget=forms.Select(
            attrs={
                "hx-get": "",
                "hx-trigger": "change",
                "hx-target": "#id_side",
                "hx-select": "#id_side",
                "hx-swap": "outerHTML",
            }
        ),
    )
    side = forms.ChoiceField(label="Your side", choices=())
    reveal_policy = forms.ChoiceField(
        label="Purchases are revealed to the opponent",
        choices=RevealPolicy.choices,
        initial=RevealPolicy.STEP_END,
    )

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        groups = cg_choices(user)
        cg_field = self.fields["cg"]
        assert isinstance(cg_field, forms.ChoiceField)
        cg_field.choices = groups
        chosen = self.data.get("cg") or self.initial.get("cg")
        flat = [value for _, options in groups for value, _ in options]
        if chosen not in flat:
            chosen = flat[0] if flat else None
        self.fields["cg"].initial = chosen
        sides = []
        if chosen:
            record = visible_modules(user).get(id=chosen.split("/")[0])
            module = parse_module(record.checksum, record.data)
            sides = [(s.id, s.name) for s in module.sides]
        side_field = self.fields["side"]
        assert isinstance(side_field, forms.ChoiceField)
        side_field.choices = sides

    @property
    def module_id(self) -> str:
        return self.cleaned_data["cg"].split("/", 1)[0]

    @property
    def variant_id(self) -> str:
        return self.cleaned_data["cg"].split("/", 1)[1]


class ModuleUploadForm(forms.Form):
    file = forms.FileField(
        label="Module file (YAML)",
        required=False,
        help_text="A CG module as docs/modules.md describes it, at most 256 kB.",
    )
    text = forms.CharField(
        label="Or paste the module",
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
        max_length=256 * 1024,
    )
