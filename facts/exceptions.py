from dewee.errors import Conflict, NotFound


class FactNotFound(NotFound):
    code = "fact_not_found"


class ReceiptNotFound(NotFound):
    code = "receipt_not_found"


class FactNotDisputed(Conflict):
    code = "fact_not_disputed"


class FactAlreadyDeleted(Conflict):
    code = "fact_already_deleted"


class FactNotDeleted(Conflict):
    """Only a deleted fact can be restored."""

    code = "fact_not_deleted"


class SlotBusy(Conflict):
    """The slot kept changing under us; the caller may simply retry."""

    code = "slot_busy"


class FactNotCurrent(Conflict):
    """Only the current value of a slot can be re-confirmed or ended."""

    code = "fact_not_current"


class UndoRefused(Conflict):
    """A resolution can no longer be undone: its window passed, someone else made it, or
    its slot changed since."""

    code = "undo_refused"


class FactNotRejected(Conflict):
    """Only a rejected fact can be reopened."""

    code = "fact_not_rejected"


class ValueAlreadyCurrent(Conflict):
    """A reopened value equal to the slot's current one would only duplicate it."""

    code = "value_already_current"


class ChangeNotPending(Conflict):
    """Only a change still to take effect (a current value whose valid_from is later) can
    be called off or moved."""

    code = "change_not_pending"
