from rules.kinds import StepKind, register

CHECKLIST = register(
    StepKind(
        name="checklist",
        finish_ahead=True,
        summary="done on the map; each side ticks it off",
        template="campaign/steps/checklist.html",
    )
)
