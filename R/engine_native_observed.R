# The native engine's set walk at observed points
# (inst/include/modelprofiles/observed.h): the sums of the tables of
# Friedman's H-statistics without the tables.

# Does the setup's engine evaluate observed_spec(), and walk each table of
# curves as a set (the native engine)?
walks_observed <- function(setup) request_engine(setup) == "native"

# The set walk at observed points (observed_spec() `spec`): list(points
# (points x outputs: the rows' weighted sums at each point), rows (with
# spec$v: rows x outputs, each row's sums over the points weighted by v),
# fitted (with spec$fitted: the predictions at the rows)), with attribute
# "n", the predictions they stand for. Columns the model does not read are
# left out (none left: one prediction per row).
native_observed <- function(setup, spec) {
  nat <- setup$native
  nm <- nat$model
  P <- length(spec$values[[1L]])
  k <- match(names(setup$data)[spec$cols], nm$features)
  read <- which(!is.na(k))
  if (length(read)) {
    z <- lapply(read, function(q) native_column(nm, k[q], spec$values[[q]], setup$data[[spec$cols[q]]]))
    out <- native_observed_sums(nm, nat$X, spec$rows, spec$w, k[read], z, spec$v, setup$threads)
  } else {
    y <- native_eval(nm, nat$X, spec$rows, threads = setup$threads)
    out <- list(points = matrix(colSums(y * spec$w), P, ncol(y), byrow = TRUE))
    if (!is.null(spec$v)) out$rows <- y * sum(spec$v)
  }
  if (spec$fitted) out$fitted <- native_eval(nm, nat$X, spec$rows, threads = setup$threads)
  structure(lapply(out, function(y) native_outputs(setup, y)), n = P * length(spec$rows))
}

# For H-statistics: background rows `rows` (weights w) with columns `cols`
# (one or two) set to each of the distinct points `values` (a list of P
# values per column) that occur among them, the points weighing v (NULL:
# the rows' sums over the points are not wanted); `fitted`: also the
# predictions at the rows. From the native engine only (native_observed()).
observed_spec <- function(rows, cols, values, w, v = NULL, fitted = FALSE) {
  list(kind = "observed", rows = rows, cols = as.integer(cols), values = values, w = w, v = v,
       fitted = fitted)
}
