from rules.kinds import Show, StepKind, register

COMPUTE = register(
    StepKind(
        name="compute",
        summary="arithmetic done by the server (e.g. replenishment), shown line by line",
        template="campaign/steps/checklist.html",
        shows=(Show.ARITHMETIC, Show.ROLLS),
    )
)
