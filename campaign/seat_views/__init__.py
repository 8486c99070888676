"""What a seat sees: one module per page, each reading campaign records only through
the visibility gate (``campaign.visibility``).  Views and consumers render from these
and nothing else."""
