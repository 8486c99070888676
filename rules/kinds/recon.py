from rules.kinds import Action, Pass, Show, StepKind, register

RECON = register(
    StepKind(
        name="recon",
        finish_ahead=True,
        passes=(Pass.NO_RECON,),
        summary="secret Recon bought with points; its dr gives the Locations revealed",
        template="campaign/steps/recon.html",
        actions=frozenset({Action.RECON}),
        shows=(Show.RECON,),
        needs="recon",
    )
)
