# The tests run without the floor on chunk sizes (min_chunk_rows, and the
# budget raised to it with a warning: floor_budget()), so that their small
# memory budgets still cut small data into many chunks; test-setup.R tests
# the floor itself, with the option unset.
options(modelprofiles.min_chunk_rows = 0)
