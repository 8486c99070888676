from rules.kinds import Action, Hook, Show, StepKind, register

RESULTS = register(
    StepKind(
        name="results",
        summary="enter the scenario's outcome; the other side confirms or disputes it",
        template="campaign/steps/results.html",
        actions=frozenset({Action.RESULT, Action.CONFIRM, Action.DISPUTE}),
        finishable=False,
        shows=(Show.RESULT_FIELDS,),
        on_complete=(Hook.SCENARIO_OVER,),
        ends_scenario=True,
    )
)
