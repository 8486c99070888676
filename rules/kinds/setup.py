from rules.kinds import Action, Show, StepKind, register

SETUP = register(
    StepKind(
        name="setup",
        summary="units are set up on the map in the order the initiative result gives",
        template="campaign/steps/table.html",
        # A roll made once the set-up is done (Sicily British chart footnote i: each
        # Bombardment's C1.31 error DR "after all on-map setup is completed"); its
        # result is read in the log.
        actions=frozenset({Action.ROLL}),
        shows=(Show.TABLES, Show.RECON_TOTAL, Show.ENTRIES),
    )
)
