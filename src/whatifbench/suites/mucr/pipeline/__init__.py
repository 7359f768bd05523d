"""``whatif build mucr``: the MuCR construction pipeline and its selection sheet."""
