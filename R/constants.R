# Tuning constants, each with its reason. (Measurements behind them are in
# inst/bench/results/.)

# Stacked rows per predict() call at most: a model's predict() is no faster
# per row on larger chunks, and smaller ones keep memory low.
max_chunk_rows <- 65536

# Chunks per future at most: enough to amortise a future's round trip,
# few enough to balance the workers.
max_chunks_per_future <- 64L

# Background rows from which ICE curves of a black-box model are predicted
# grid value by grid value (sharing columns) rather than row by row.
grid_order_rows <- 2000

# The largest memory budget used, in MiB (1 PiB): more than any machine has,
# and more than a chunk of 2^31 - 1 stacked rows can use.
max_memory_budget <- 2^30

# Bytes a kept ICE point costs (its cell of a G x rows array of doubles;
# the long cp_profiles frame is made only when asked for), and a kept row
# of the linear engine's curves (intercept and slope), for the memory
# budget; the kept curves take at most this share of it.
ice_bytes_per_point <- 8
ice_bytes_per_row <- 16
ice_budget_share <- 0.5

# A grid point of a kernel LD profile has support when a background row
# lies within this many bandwidths.
kernel_support <- 3

# H-statistics: numerators below this (absolute) are 0, as in hstats.
h_eps <- 1e-10

# The leaves of the background rows in every tree (4 bytes per row and
# tree) are kept when they take at most this share of the memory budget.
native_leaves_share <- 0.25

# The least garbage, in bytes of predicted rows, that the sequential
# executor collects at once (chunk_policy()).
gc_min_bytes <- 32 * 2^20

# Native partial dependence without curves (partial_sums_request()): the
# rows go to the set walk in this many chunks (progress ticks and the
# checks for interrupts between them), of this many rows at least.
native_sums_chunks <- 20
native_sums_min_rows <- 8192

# Bytes the native engine holds per stacked row and output (a double and its
# copy), on top of the budget's share of the chunks (chunk_policy()).
native_row_bytes <- 16

# Rows whose ICE curves are made at a time when the observations' predictions
# are read off them (ice_observations(), R/result_ice.R): a linear block's
# curves of 2^14 rows at 101 grid points take 13 MB.
ice_chunk_rows <- 16384L
