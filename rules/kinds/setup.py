from rules.kinds import StepKind, register

SETUP = register(
    StepKind(
        name="setup",
        summary="units are set up on the map in the order the initiative result gives",
        template="campaign/steps/checklist.html",
    )
)
