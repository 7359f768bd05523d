"""The audit's cache: ``core.records.audit`` (reports read it too, and it is a record of core);
kept under this name for the audit's modules."""

from whatifbench.core.records.audit import (  # noqa: F401
    AUDIT_VERSION,
    AuditCache,
    audit_path,
    load_audit,
    save_audit,
)
