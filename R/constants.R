# Tuning constants, each with its reason. (Measurements behind them are in
# inst/bench/results/.)

# Stacked rows per predict() call at most: a model's predict() is no faster
# per row on larger chunks, and smaller ones keep memory low.
max_chunk_rows <- 65536

# Stacked rows per chunk at least, whatever the memory budget (a smaller
# budget is raised to what such chunks need, with a warning: see
# floor_budget()): a quarter of max_chunk_rows. Every predict() call has a
# fixed cost, large for some models: measured here (CPU), predict.lm() 0.65
# ms and 0.27 us a row; a 100-tree ranger forest fitted on 20,000 rows
# 210 ms (it converts the forest on every call) and 35 us a row, so
# chunks of 16,384 rows cost it 1.37 times the rows' own time (65,536:
# 1.09; 4,096: 2.5). Such a chunk takes a few MiB to tens of MiB.
# (chunk_floor() reads it; the tests lower it.)
min_chunk_rows <- 16384

# Chunks per future at most: enough to amortise a future's round trip,
# few enough to balance the workers.
max_chunks_per_future <- 64L

# A future's round trip takes at most this share of the work it carries
# (where what is left of a call allows it).
future_overhead_share <- 0.05

# A call turns to the workers when what is left of it is worth at least
# this many round trips for each of two workers or more (at 4, 2 workers
# finish it 1.6 times faster than this process alone, as far as its
# predict() calls divide).
future_turn_trips <- 4

# Seconds of prediction this process times before it decides on the
# workers (at least a round trip's too): on a busy machine a stack of a few
# milliseconds can wait a slice of the processor (up to about 24 ms) for
# another process and look many times its cost. Predicting them here costs
# a call that the workers would speed up at most this much of its gain.
future_least_timed <- 0.1

# A future's round trip before the call's first futures are in (and no
# call under the plan learnt it), in seconds: running workers (multisession,
# multicore, cluster, mirai: 0.02 to 0.05 s here, see
# inst/bench/results/bench-parallel-first.txt), a new R process per future
# (callr), a scheduler's job (batchtools); plus these seconds a byte that
# every future carries (the model, the predict function).
future_trip_prior <- c(workers = 0.05, process = 0.5, scheduler = 30)
future_trip_per_byte <- 1e-8

# Plans whose round trip the session keeps (plan_trips).
max_plan_trips <- 8L

# Waiting for futures: pauses between polls, from the first to the longest
# (longer for a future out for long: this share of the time it has been
# out, the most it is collected late).
future_poll_pause <- c(0.001, 0.02)
future_poll_share <- 0.02

# Before a call's first stack is timed here, chunks are made until this
# many stacks per worker are queued (or the requests under way have no
# more), and the head of the smallest is timed: the workers wait for it.
probe_pool <- 4L

# The rows of that head: this share of the call's rows (so that the
# workers wait for 1/32 of the call at most, while a stack of tens of
# rows costs one more predict() call at most).
probe_divisor <- 32

# A stack is cut into pieces for the futures only where each keeps this
# many rows (a predict() call has its own cost).
future_min_piece <- 256

# Futures in flight at most (a scheduler's plan has unboundedly many
# workers).
max_futures_in_flight <- 32L

# A model travels once to each worker of a call (not with each future)
# when it takes at least worker_model_least_bytes (below, its travel costs
# nothing that counts) and at most worker_model_bytes (the largest left on
# a worker between calls; R/executor_future.R, worker_keeps()).
worker_model_least_bytes <- 1e5
worker_model_bytes <- 2^30

# Background rows from which ICE curves of a black-box model are predicted
# grid value by grid value (sharing columns) rather than row by row.
grid_order_rows <- 2000

# The largest memory budget used, in MiB (1 PiB): more than any machine has,
# and more than a chunk of 2^31 - 1 stacked rows can use.
max_memory_budget <- 2^30

# Bytes a kept ICE point costs (its cell of a G x rows array of doubles;
# the long cp_profiles frame is made only when asked for), and a kept row
# of the linear engine's curves (intercept and slope), for the memory
# budget (its "kept_ice" share).
ice_bytes_per_point <- 8
ice_bytes_per_row <- 16

# The memory budget's ledger: the share of `memory_budget` each holder may
# take, by name. Code asks budget_bytes(setup, "<name>") (R/budget.R), and
# what does not fit is refused with budget_abort()'s one message.
budget_shares <- c(
  # One chunk of stacked rows with its predictions: the rest of the budget
  # is for what R has not yet collected of the chunks before, and for the
  # vectors of the background's length that a profile holds.
  chunk = 1 / 3,
  # The sequential executor collects garbage once the chunks have left this
  # share of the budget that the native engine leaves (at least
  # gc_min_bytes).
  garbage = 1 / 3,
  # What the native engine holds (its compiled model, its copy of the
  # background rows, their leaves) leaves at least this share to the chunks.
  chunks_least = 1 / 4,
  # A block of background rows' G x block predictions in grid order (the
  # black-box ICE curves of many rows, grid value by grid value).
  grid_block = 1 / 4,
  # Kept ICE curves; the chunks are then sized for the rest, which keeps at
  # least the "kept_rest" share.
  kept_ice = 1 / 2,
  kept_rest = 1 / 2,
  # The leaves of the background rows in every tree (4 bytes per row and
  # tree), kept for the native engine's later evaluations when they fit.
  native_leaves = 1 / 4,
  # Bootstrap bands: the resampling counts (n x B integers).
  resamples = 1 / 4,
  # Bootstrap bands of H-statistics: their tables of replicated sums (the
  # chunks of predictions take another third).
  h_band_tables = 1 / 3,
  # Bands of means of ICE curves: one variable's curves (G x rows x outputs).
  band_curves = 1
)
# A share 1/k in words, for messages ("... more than a quarter of
# `memory_budget`"): element k.
budget_share_words <- c("", "half of ", "a third of ", "a quarter of ")

# A grid point of a kernel LD profile has support when a background row
# lies within this many bandwidths.
kernel_support <- 3

# H-statistics: numerators below this (absolute) are 0, as in hstats.
h_eps <- 1e-10

# LightGBM: the most nodes that rebuilt trees may have in all (bounds the
# time spent rebuilding).
LGB_MAX_REBUILT <- 2^20

# The least garbage, in bytes of predicted rows, that the sequential
# executor collects at once (chunk_policy()).
gc_min_bytes <- 32 * 2^20

# Native partial dependence without curves (pd_request()): the
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

# Panels of plot(find_regions()) drawn by default: the variables whose
# regions explain most (each panel's strip names its regions, so more
# would not fit a chart of 7 x 5 inches).
regions_max_panels <- 4L

# Where a profile extrapolates (R/extrapolation.R): an evaluation point is
# outside the data when its nearest-neighbour distance exceeds this
# quantile of the background rows' own nearest-neighbour distances (tail
# probability 1 - 0.95: about 5% of evaluation points are "outside" where
# the profiled variable is independent of the others); a categorical
# mismatch (or a missing value against an observed one) adds this much to
# a squared distance of standardised numeric variables (one standard
# deviation's worth); at most this many background rows are the reference
# (evenly spaced among them: the cost is O(rows x reference x variables));
# charts and print() point out where the share of outside points exceeds
# the level.
extrapolation_quantile <- 0.95
extrapolation_mismatch <- 1
extrapolation_max_reference <- 1000L
extrapolation_level <- 0.5
# Above this many background rows the measure is estimated on a random
# subsample of this many of them (its cost is O(rows x reference x
# variables); the share is a weighted mean over rows, so the subsample's
# binomial standard error is at most 0.5 / sqrt(10,000) = 0.005), drawn
# with this seed (the same rows whatever the session's seed).
extrapolation_max_rows <- 10000L
extrapolation_seed <- 42L

# Rows per block of a background column's fingerprint (refit_bands()'s
# check of the other columns): no vector of the column's length is made.
print_block_rows <- 65536L

# The infinitesimal jackknife's calibration (eb_prior()): ranger's grid of
# the prior and penalty of a prior that cannot be normalised.
ij_prior_points <- 1000L
ij_prior_penalty <- 1000
