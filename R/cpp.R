# The boundary with C++: every call into compiled code is here (checked by
# tools/house-rules.R), and so is every conversion between R's 1-based
# indices and the exports' 0-based ones. Elsewhere rows, columns, outputs
# and intervals are 1-based (interval numbers, ALEPlot's, are 1-based in
# C++ too: converting them would cost a copy of every row's); `threads` is
# a resolved count (see resolve_threads()).

# Stacked rows as a data frame: row r is background row rows[r] of `data` (a
# list of columns), with the columns `cols` set to `values` (one vector per
# column, of the column's type, one value per stacked row). rows = NULL: the
# background rows themselves, in order, sharing the other columns.
stack_frame <- function(data, rows = NULL, cols = integer(), values = list(), threads = 1L) {
  src <- if (!is.null(rows)) as.integer(rows - 1L)
  cpp_stack_frame(data, src, as.integer(cols - 1L), values, threads)
}

# Weighted sums over the rows of an observation-major table (each row's G
# predictions consecutive) of output column `output` of y: G sums.
grid_sums <- function(y, G, w, threads, output = 1L) {
  cpp_grid_sums(y, G, w, threads, output - 1L)
}

# Kernel-weighted sums of output `output` of an observation-major G x m table
# (with lag, of its consecutive grid differences): list(num, den).
kernel_sums <- function(y, z, x, w, dmin, bandwidth, lag, threads, output = 1L) {
  cpp_kernel_sums(y, z, x, w, dmin, bandwidth, lag, threads, output - 1L)
}

# kernel_sums() (lag = FALSE) with the moments of grid_moments() for its
# kernel weights, in one pass: list(num, den, shift, q1, q2, k2).
kernel_sums_moments <- function(y, z, x, w, dmin, bandwidth, threads, output = 1L) {
  cpp_kernel_sums_moments(y, z, x, w, dmin, bandwidth, threads, output - 1L)
}

# Moments of output `output` of an observation-major G x m table for the
# standard errors of its weighted means with row weights w (see
# grid_moments() in kernels.h): list(shift, q1, q2, k2).
grid_moments <- function(y, G, w, threads, output = 1L) {
  cpp_grid_moments(y, G, w, threads, output - 1L)
}

# The kernel weights of kernel_sums() (without the rows' weights w): a
# G x m matrix.
kernel_weights <- function(z, x, dmin, bandwidth, threads) {
  cpp_kernel_weights(as.double(z), as.double(x), dmin, bandwidth, threads)
}

# Weighted sums of output `output` of y over consecutive groups of rows,
# group g holding rows offsets[g] + 1 to offsets[g + 1]: list(sum, wsum).
group_sums <- function(y, w, offsets, threads, output = 1L) {
  cpp_group_sums(y, w, as.integer(offsets), threads, output - 1L)
}

# Distance from each z to the nearest of the sorted values xs.
nearest_dist <- function(z, x) cpp_nearest_dist_unsorted(as.double(z), as.double(x))

# The interval (1-based, ALEPlot's rule) of each x among sorted edges; NA
# outside them.
interval_index <- function(x, edges, threads) cpp_interval_index(as.double(x), as.double(edges), threads)

# Weighted sums of output `output` of y per interval k (1-based) of K:
# list(sum, wsum).
interval_sums <- function(y, k, w, K, output = 1L) {
  cpp_interval_sums(y, as.integer(k), w, as.integer(K), output - 1L)
}

# The weighted sums of every output of y per interval k (1-based) of K: a
# K x (outputs + 1) matrix, the weights' sums last.
interval_sum_table <- function(y, k, w, K) {
  sums <- lapply(seq_len(ncol(y)), function(c) interval_sums(y, k, w, K, c))
  cbind(matrix(unlist(lapply(sums, `[[`, "sum")), K), sums[[1L]]$wsum)
}

# How often each of n rows is drawn in each of B resamples of n rows with
# replacement: an n x B integer matrix, from R's random-number stream (so
# the same for any number of threads).
draw_resamples <- function(n, B) {
  # = vapply(seq_len(B), function(b) tabulate(sample.int(n, n, replace = TRUE), n), integer(n))
  cpp_draw_resamples(n, B)
}

# Sums over the bootstrap's resamples (setup$resamples, n x B counts) of
# the values y (a vector, or a matrix with a column per value) of entries
# of background rows idx (positions among setup's rows), with weights w
# times the rows' counts, per group grp (1..K; NULL for one group):
# list(sum ((K p) x B: group fastest, then value), wsum (K x B)). Each
# resample's sums follow the entries in order, for any number of threads.
resample_sums <- function(setup, idx, y, w, grp = NULL, K = 1L) {
  y <- if (is.null(y)) matrix(0, length(idx), 0L) else as.matrix(y)
  if (!is.double(y)) storage.mode(y) <- "double"
  cpp_resample_group_sums(resample_matrix(setup), as.integer(idx - 1L),
                          if (is.null(grp)) integer() else as.integer(grp - 1L), as.integer(K),
                          as.double(w), y, setup$threads)
}

# M %*% (setup$resamples[idx, ] (* w)): the resampled weighted sums of the
# columns of M (a column per entry), G x B; the product by Armadillo.
resample_product <- function(setup, M, idx, w = NULL) {
  if (!is.double(M)) storage.mode(M) <- "double"
  cpp_resample_product(M, resample_matrix(setup), as.integer(idx - 1L),
                       if (!is.null(w)) as.double(w), setup$threads)
}

# R's quantile(r, probs, na.rm = TRUE, type = 7) of each row r of the
# replicate matrix R, NA where fewer than half of its values are defined:
# probs x rows.
row_quantiles <- function(R, probs, threads = 1L) {
  if (!is.double(R)) storage.mode(R) <- "double"
  cpp_row_quantiles(R, as.double(probs), as.integer(threads))
}

resample_matrix <- function(setup) {
  r <- setup$resamples
  if (!is.integer(r)) storage.mode(r) <- "integer"
  r
}

# The sums over n rows of squared influences on the values of profile = A m
# (A: values x K), row r's influence being A v_r + s_r: v_r the columns of
# Vt (K x n), or the sums of the entries `a` at rows `pos` and positions
# `cell` of v; s a value per row (or NULL). In C++ (cpp_influence_ss()),
# rows in blocks: no n x values matrix is made.
influence_ss <- function(A, n, Vt = NULL, pos = integer(), cell = integer(), a = numeric(), s = NULL,
                         threads = 1L) {
  if (!is.double(A)) storage.mode(A) <- "double"
  if (is.null(Vt)) Vt <- matrix(0, ncol(A), 0L)
  if (!is.double(Vt)) storage.mode(Vt) <- "double"
  cpp_influence_ss(A, Vt, as.integer(pos - 1L), as.integer(cell - 1L), as.double(a),
                   if (is.null(s)) numeric() else as.double(s), as.integer(n), as.integer(threads))
}

# Quantiles of type 1 or 7 of the numbers z (no missing values; column `col`
# of a matrix z), with case weights w (NULL: none): stats::quantile()'s, or
# weighted_quantile1() and weighted_quantile7()'s, from one sorted copy in
# C++ (stats::quantile() and order() make several vectors of z's length).
column_quantiles <- function(z, p, type, w = NULL, col = 1L) {
  n <- if (is.matrix(z)) nrow(z) else length(z)
  cpp_quantiles(z, n, col - 1L, as.double(p), as.integer(type), if (!is.null(w)) as.double(w))
}

# Doors without indices: the sorted distinct values of x when there are at
# most `limit` (else NULL, found without a hash table of x's length);
# whether all values of x are the same (none missing); the number (or with
# weights w, the weight) of the values x in each interval between the
# sorted values v; the values a + s z of affine curves, observation-major;
# the memory R freed given back to the system (malloc_trim()).
distinct_upto <- function(x, limit) cpp_distinct_upto(x, as.integer(limit))
all_same <- function(x) cpp_all_same(x)
interval_tally <- function(x, v, w = NULL) cpp_interval_counts(x, v, if (!is.null(w)) as.double(w))
affine_curves <- function(a, s, z, threads) cpp_affine_curves(a, s, z, threads)
release_memory <- function() cpp_release_memory()

# column_print() of a double, integer or logical column in one pass (NULL
# for other columns and for ALTREP columns without a data pointer).
numeric_column_print <- function(x, rows = NULL) {
  cpp_column_print(x, if (!is.null(rows)) as.integer(rows - 1L))
}

# support_scale()'s weighted standard deviation of a double or integer
# column, in blocks of print_block_rows as its R loop summed.
weighted_sd <- function(x, w) cpp_weighted_sd(x, as.double(w), print_block_rows)

# The number of infinite values of a numeric column (allocating nothing of
# its length).
n_infinite <- function(x) {
  if (!is.double(x)) return(0L)
  cpp_count_infinite(x)
}

# Weighted column means of an n x outputs matrix (hstats' wcolMeans()).
weighted_col_means <- function(M, w) {
  if (!is.matrix(M) || !is.double(M) || !is.double(w) || nrow(M) != length(w) || !length(w)) return(colSums(w * M) / sum(w))
  stats::setNames(cpp_weighted_col_sums(M, w), colnames(M)) / sum(w)
}

# The best split of the centred ICE curves' columns `ord` (cpp_best_split()).
best_split <- function(curves, w, ord, key, min_w) cpp_best_split(curves, w, as.integer(ord - 1L), key, min_w)

# Accumulated interval effects, centred with the interval counts: K + 1
# values at the edges.
accumulate_center <- function(delta, count) cpp_accumulate_center(delta, count)

# A compiled tree ensemble's nodes, checked and packed for the C++ loops (an
# external pointer).
native_pack <- function(nm) cpp_native_pack(nm)

# Predictions of a compiled ensemble for rows `rows` (1-based, or NULL for
# all rows of X in order) of the features X (native_columns()), with the features
# `features` (1-based) set to `values` (codes, one vector per feature).
native_eval <- function(nm, X, rows = NULL, features = integer(), values = list(), threads = 1L) {
  if (is.null(rows)) rows <- seq_len(native_n(X))
  cpp_native_predict(nm, X, as.integer(rows - 1L), as.integer(features - 1L), values, threads)
}

# The leaves of every row of X in every tree (an external pointer, for
# native_eval_cached() with the same nm and X).
native_leaves <- function(nm, X, threads) cpp_native_leaves(nm, X, threads)

# native_eval() from the leaves of the rows of X (native_leaves(nm, X)), for
# rows that change one feature at most; NULL when the leaves are not those
# of nm and X.
native_eval_cached <- function(nm, X, rows, features, values, leaves, threads) {
  if (is.null(rows)) rows <- seq_len(native_n(X))
  cpp_native_predict_cached(nm, X, as.integer(rows - 1L), as.integer(features - 1L), values,
                            leaves, threads)
}

# Trees, nodes, outputs and bytes of a compiled ensemble's packing.
native_packed_size <- function(nm) cpp_native_size(nm)

# ICE curves of a compiled ensemble: rows `rows` (1-based) of X with feature
# `feature` (1-based) over the codes z, observation-major.
native_curves <- function(nm, X, rows, feature, z, threads) {
  cpp_native_ice(nm, X, as.integer(rows - 1L), as.integer(feature - 1L), as.double(z), threads)
}

# Weighted sums over rows `rows` (1-based, weights w) of X of the
# predictions with feature `feature` (1-based) at each of the codes z: a
# length(z) x outputs matrix (NA where a prediction is missing), by the set
# walk.
native_partial_sums <- function(nm, X, rows, w, feature, z, threads) {
  cpp_native_pd(nm, X, as.integer(rows - 1L), as.double(w), as.integer(feature - 1L),
                as.double(z), threads)
}

# The set walk at observed points of a compiled ensemble: rows `rows`
# (1-based) of X with weights w, features `features` (1-based; one or two)
# at the distinct points (z[[1]][q], z[[2]][q]) (codes) with weights v
# (NULL: none): list(points (points x outputs: the rows' weighted sums at
# each point) and, with v, rows (rows x outputs: each row's sums over the
# points weighted by v)).
native_observed_sums <- function(nm, X, rows, w, features, z, v, threads) {
  cpp_native_observed(nm, X, as.integer(rows - 1L), as.double(w), as.integer(features - 1L),
                      lapply(z, as.double), if (!is.null(v)) as.double(v), threads)
}

# A ranger forest packed straight from its node lists (see
# native_model.ranger()); `class_cols` are 1-based columns of the leaf
# counts, in the order of the outputs.
ranger_pack <- function(child_left, child_right, var_ids, split_values, is_ordered,
                        class_counts, class_cols) {
  cpp_native_ranger(child_left, child_right, var_ids, split_values, is_ordered,
                    class_counts, as.integer(class_cols - 1L))
}

# Readers of model formats, whose node and variable numbers are read as the
# format has them: a randomForest forest packed from its arrays (NULL when
# malformed); an xgboost booster's UBJSON `ubj` for p features (a list, or
# why it cannot be read).
randomforest_pack <- function(...) cpp_native_randomforest(...)
xgb_read <- function(ubj, p, keep = -1L) cpp_xgb_read(ubj, as.integer(p), as.integer(keep))

# Per-tree PD of a compiled forest that averages its trees: rows `rows`
# (1-based) of X with weights w, feature `feature` (1-based; NA: a column
# the model does not read) over the codes z. A G x trees x outputs array.
native_tree_partial <- function(nm, X, rows, w, feature, z, threads) {
  j <- if (is.na(feature)) -1L else as.integer(feature - 1L)
  cpp_native_tree_pd(nm, X, as.integer(rows - 1L), as.double(w), j, as.double(z), threads)
}

# The grid points of the distinct numeric splits on feature k (1-based) of
# a compiled model, ascending, with attributes "rule" and "float32"
# (cpp_native_splits()): the thresholds, or for a model that compares in
# single precision the first double right of each float threshold (rule 1;
# rule 0: the last double left of it).
native_splits <- function(nm, k) cpp_native_splits(nm, as.integer(k - 1L))

# Predictions of rows `rows` (1-based) of X with features k1 and k2 (1-based)
# set to each point (z1[q], z2[q]): observation-major, or with weights w
# their weighted sums over the rows (cpp_native_points()).
native_points <- function(nm, X, rows, k1, k2, z1, z2, w = NULL, threads = 1L) {
  cpp_native_points(nm, X, as.integer(rows - 1L), as.integer(k1 - 1L), as.integer(k2 - 1L),
                    as.double(z1), as.double(z2), if (!is.null(w)) as.double(w), threads)
}

# A lazy column (ALTREP, src/lazy_columns.cpp) of n values, made by
# ice_lazy_values(recipe) when read whole and ice_lazy_subset(recipe, i) for
# rows i, of the type and attributes of `prototype`.
lazy_column <- function(recipe, n, prototype) cpp_lazy_column(recipe, as.double(n), prototype)

# How many reference rows the distances take at once: 0 (the most the
# processor runs: 4 with AVX, else 2), or the option
# modelprofiles.support_lanes (1, 2 or 4; the numbers do not depend on it).
support_lanes <- function() {
  lanes <- getOption("modelprofiles.support_lanes", 0L)
  if (isTRUE(lanes %in% c(0, 1, 2, 4))) as.integer(lanes) else 0L
}

# Each reference row's squared distance to its nearest other reference row
# (rows `ref`, 1-based among the space's rows; see support_space()).
support_reference_distances <- function(space, ref, threads) {
  cpp_support_reference(space$num, space$fac, space$mismatch, as.integer(ref - 1L), support_lanes(), threads)
}

# The evaluation points outside the support (support.h) of rows `eval`
# (1-based) with weights w, over `axes` (lists of numeric, col (1-based,
# within num or fac), z (standardised) and zc (codes)): the one-variable
# profile of each axis, or with `pair` the two-variable profile of two,
# against the space's reference rows. A list per profile: list(share,
# outside (G x rows raw; keep only)).
support_outside <- function(space, axes, eval, w, keep, threads, pair = FALSE) {
  axes <- lapply(axes, function(a) {
    list(numeric = a$numeric, col = as.integer(a$col - 1L), z = as.double(a$z), zc = as.integer(a$zc))
  })
  self <- match(eval, space$ref) - 1L
  self[is.na(self)] <- -1L
  cpp_support_outside(space$num, space$fac, space$mismatch, as.integer(space$ref - 1L),
                      as.integer(eval - 1L), as.integer(self), space$t2, axes, isTRUE(pair),
                      as.double(w), isTRUE(keep), support_lanes(), threads)
}
