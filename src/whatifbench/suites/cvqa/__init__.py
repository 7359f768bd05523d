"""What C-VQA-Real and C-VQA-Synthetic share: the release's prompts and the paired table."""
