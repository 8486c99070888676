class ActionRefused(Exception):
    """A player's action the rules or the campaign's state do not allow.  The message
    is a sentence for that player; nothing was changed.  ``status`` is the HTTP status
    a view answers with."""

    def __init__(self, message: str, *, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


class NotFound(ActionRefused):
    def __init__(self, message: str = "There is no such campaign, or it is not yours."):
        super().__init__(message, status=404)
