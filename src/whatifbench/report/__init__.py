"""Tables (terminal, Markdown), plots and the self-contained HTML report."""
