# The native engine: tree ensembles evaluated by the package's own C++ code
# (inst/include/modelprofiles/, through R/cpp.R), standing in for the model's own predict function.

# Compile the model for engines "auto" and "native" (only for the adapter's
# own predict function, checked by new_setup()): list(model, X, bytes,
# leaves_bytes, memo), or NULL when the model cannot be compiled (an error
# for engine = "native"). `bytes` are what the compiled model and X take
# (counted in the memory budget by chunk_policy()); `leaves_bytes` those of
# the background rows' leaves (native_leaf_source()), 0 when they would take
# more than the budget's "native_leaves" share; `memo` (an environment) keeps
# the leaves once computed, for the setup's lifetime.
#
# A framework's model (parsnip, workflows, caret, mlr3) is compiled through
# the model inside it (the adapter's `inner`, see framework_native()): its
# features renamed to the data's columns, its outputs made the framework's
# classes (native_framework()), and its predictions of a few background rows
# checked against the framework's own predict() (native_agrees()).
native_prepare <- function(setup, engine, call) {
  if (engine == "predict") return(NULL)
  inner <- setup$adapter$inner
  nm <- native_model_for(setup)
  if (is.character(nm)) return(native_fail(engine, nm, call))
  missing_cols <- setdiff(nm$features, names(setup$data))
  if (length(missing_cols)) {
    return(native_fail(engine, paste0("the data lack the model's columns ", paste(missing_cols, collapse = ", "), "."), call))
  }
  if (isTRUE(inner$numeric)) {
    other <- nm$features[!vapply(setup$data[nm$features], function(x) is.numeric(x) || is.logical(x), logical(1))]
    if (length(other)) {
      return(native_fail(engine, paste0("the framework passes the columns to the model as numbers (as.matrix()), and ",
                                        paste(other, collapse = ", "), " are not numbers."), call))
    }
  }
  # The compiled model's outputs are the adapter's classes, in its order
  # (the converters are written so); anything else keeps predict().
  classes <- setup$adapter$classes
  if (length(classes) > 1L && !identical(as.character(nm$outputs), classes)) {
    return(native_fail(engine, "the compiled model's outputs are not the model's classes in its order.", call))
  }
  X <- native_columns(nm, structure(setup$data, class = "data.frame",
                                    row.names = .set_row_names(setup$n)))
  if (!is.null(inner) && !native_agrees(setup, nm, X)) {
    return(native_fail(engine, "the compiled model inside does not give the framework's predictions.", call))
  }
  size <- native_size(nm)
  leaves_bytes <- 4 * setup$n * size[["trees"]]
  if (leaves_bytes > budget_bytes(setup, "native_leaves")) leaves_bytes <- 0
  list(model = nm, X = X, bytes = size[["bytes"]] + native_columns_bytes(nm, setup$data), leaves_bytes = leaves_bytes,
       memo = new.env(parent = emptyenv()))
}

# The compiled model inside a framework as the framework's model (`inner`:
# the adapter's, see framework_native(); classes: the framework's): its
# features renamed to the data columns they are, its outputs the classes
# (renamed; reordered, or 1 minus the one output of a binary booster, by
# the leaf values and base of a booster's trees, which are then packed
# again). A string says why it cannot be.
native_framework <- function(nm, inner, classes) {
  if (!is.null(inner$features)) {
    cols <- unname(inner$features[nm$features])
    if (anyNA(cols)) {
      return(paste0("the model inside reads ", paste(nm$features[is.na(cols)], collapse = ", "),
                    ", which the framework makes from the data's columns."))
    }
    nm$features <- cols
  }
  if (anyDuplicated(nm$features)) return("the model inside reads a column of the data twice.")
  out <- inner$outputs
  if (is.null(out)) return(nm)
  n_out <- max(1L, length(nm$outputs))
  if (length(out$from) != length(classes) || length(out$complement) != length(classes)) {
    return("the framework's classes are not the compiled model's outputs.")
  }
  idx <- if (all(is.na(out$from))) {
    if (length(nm$outputs)) NA_integer_ else rep(1L, length(classes))
  } else {
    match(out$from, nm$outputs)
  }
  if (anyNA(idx)) return("the framework's classes are not the compiled model's outputs.")
  if (identical(idx, seq_len(n_out)) && !any(out$complement)) {
    nm$outputs <- classes
    return(nm)
  }
  if (!identical(nm$kind, "trees")) return("the compiled model's outputs cannot be reordered.")
  if (any(out$complement) && (n_out != 1L || !identical(nm$transform, "logistic"))) {
    return("the compiled model has no one probability to complement.")
  }
  # logistic(-m) = 1 - logistic(m); negating the leaf values and the base
  # negates the margin exactly (in float too).
  sign <- ifelse(out$complement, -1, 1)
  nm$value <- nm$value[, idx, drop = FALSE] * rep(sign, each = nrow(nm$value))
  nm$base <- nm$base[idx] * sign
  nm$outputs <- classes
  nm$cache <- native_pack(nm)
  nm
}

# Does the compiled model give the framework's own predictions of (up to 3
# complete) background rows? To 1e-9 relative (1e-5 for a model compared
# in single precision, xgboost); FALSE when the framework cannot predict them.
native_agrees <- function(setup, nm, X) {
  first <- seq_len(min(setup$n, 1000L))
  rows <- utils::head(which(do.call(stats::complete.cases, unname(lapply(setup$data, `[`, first)))), 3L)
  if (!length(rows)) return(TRUE)
  own <- tryCatch({
    y <- setup$predict_function(setup$model, stack_frame(setup$data, rows, threads = 1L))
    check_predictions(y, length(rows), call = NULL, allow_na = TRUE)
  }, error = function(e) NULL)
  if (is.null(own)) return(FALSE)
  got <- native_eval(nm, X, rows)
  own <- unname(as.matrix(own))
  if (!identical(dim(own), dim(got)) || anyNA(own) || anyNA(got)) return(FALSE)
  tol <- if (isTRUE(nm$float32)) 1e-5 else 1e-9
  all(abs(got - own) <= tol * pmax(1, abs(own)))
}

# The model the native engine compiles for a call's inputs: the model inside
# a framework's, else the model.
native_source <- function(inputs) inputs$adapter$inner$model %||% inputs$model

# The setup's model compiled (through the call's store), its features named
# by the data's columns and, inside a framework, its outputs the framework's
# classes; or why it cannot be (a string).
native_model_for <- function(setup) {
  inner <- setup$adapter$inner
  if (!is.null(inner) && is.null(inner$model)) return(inner$why %||% "the model inside is not supported.")
  nm <- if (setup$adapter$native) native_compile_cached(native_source(setup), setup$compiled)
  if (is.null(nm)) {
    return(paste0("models of class <", class(native_source(setup))[1L], "> (with these settings) are not supported."))
  }
  if (!is.null(inner)) {
    nm <- native_framework(nm, inner, setup$adapter$classes)
    if (is.character(nm)) return(nm)
  }
  nm$features <- feature_columns(nm$features, names(setup$data))
  nm
}

# Is compiling the model of `inputs` (cold) and evaluating m stacked rows
# natively faster than predicting them through the model's predict()? Yes
# when the model is compiled already (in the call's store: by
# compile_model(), or by a profile before), and for m of at least the
# adapter's `native_min_rows` (0 but for lightgbm, also inside a framework;
# see model_adapter.lgb.Booster()).
native_pays <- function(inputs, m) {
  model <- native_source(inputs)
  if (is.null(model)) return(TRUE)
  if (m >= (inputs$adapter$native_min_rows %||% 0)) return(TRUE)
  tryCatch(native_store_find(inputs$compiled, model) > 0L, error = function(e) FALSE)
}

native_fail <- function(engine, why, call) {
  if (engine == "native") {
    cli::cli_abort(c("The native engine cannot be used: {why}", i = "Use {.code engine = \"auto\"} or {.code \"predict\"}."), call = call)
  }
  NULL
}

# Stacked rows through the native engine (rows 1-based, or NULL for all
# background rows in order): no data frame is built. Rows that change one
# column of the background rows at most come from the leaves of the
# background rows (native_leaf_source()).
native_predict_stacked <- function(setup, rows, cols, values) {
  nat <- setup$native
  m <- if (is.null(rows)) setup$n else length(rows)
  native_outputs(setup, native_predict_rows(nat$model, nat$X, setup$data, rows, cols, values,
                                            setup$threads, native_leaf_source(setup, m)))
}

# The leaves of the background rows in every tree, as a function that
# computes them once per setup (kept in its memo) and returns them: NULL
# when they do not fit in the memory budget (leaves_bytes 0). Computing them
# costs a prediction of every background row, so a request of fewer than a
# quarter of that many rows does not start it (but uses them once made).
native_leaf_source <- function(setup, m) {
  nat <- setup$native
  if (!isTRUE(nat$leaves_bytes > 0)) return(NULL)
  memo <- nat$memo
  if (is.null(memo$leaves) && 4 * m < setup$n) return(NULL)
  function() {
    if (is.null(memo$leaves)) memo$leaves <- native_leaves(nat$model, nat$X, setup$threads)
    memo$leaves
  }
}

# ICE curves of one or two columns js over `grid` (a list of values of the
# columns' types) for background rows `rows`, by the set walk (a column the
# model does not read gives flat curves from one prediction per row).
native_ice <- function(setup, js, grid, rows) {
  native_outputs(setup, native_free(setup, js, grid, rows))
}

# Weighted sums over background rows `rows` (weights w) of the predictions
# with column j at each value of `grid`, by the set walk: a G x outputs
# matrix, with attribute "n", the predictions it stands for.
native_sums <- function(setup, js, grid, rows, w) {
  grid <- if (is.list(grid)) grid else list(grid)
  y <- native_free(setup, js, grid, rows, w)
  structure(native_outputs(setup, y), n = length(grid[[1L]]) * length(rows))
}

# native_free_rows() of the setup's background rows `rows`.
native_free <- function(setup, js, grid, rows, w = NULL) {
  nat <- setup$native
  native_free_rows(nat$model, nat$X, setup$data, js, grid, rows, setup$threads, w)
}

# The profiled outputs of native predictions.
native_outputs <- function(setup, y) {
  y <- unname(y)
  if (ncol(y) > 1L) y <- y[, setup$outputs$columns, drop = FALSE]
  if (anyNA(y)) native_missing(setup)
  y
}

# A missing prediction of the native engine: a missing value in a column the
# model has no rule for (ranger and randomForest forests do not handle
# them). Names the columns.
native_missing <- function(setup) {
  counts <- vapply(setup$native$X, function(x) sum(is.na(x)), numeric(1))
  cols <- setup$native$model$features[counts > 0]
  if (!length(cols)) {
    cli::cli_abort(c(
      "The native engine met a missing value that the model has no rule for.",
      i = "Use {.code engine = \"predict\"} to see what the model's own {.fn predict} does with it."
    ), call = setup$error_call)
  }
  n <- counts[counts > 0]
  where <- paste0(cols, " (", n, " row", ifelse(n == 1, "", "s"), ")")
  cli::cli_abort(c(
    "The model cannot predict rows with missing values in {where}.",
    i = "Impute them, or drop those rows from {.arg data}."
  ), call = setup$error_call)
}

# The size of a compiled model: trees, nodes, outputs, and the bytes of its
# packing and node arrays.
native_size <- function(nm) {
  size <- native_packed_size(nm)
  if (!identical(nm$kind, "packed")) {
    arrays <- c("tree_start", "feature", "threshold", "left", "right", "missing",
                "cat_start", "cat_len", "cat_left", "value")
    size[["bytes"]] <- size[["bytes"]] + sum(vapply(nm[arrays], function(x) {
      as.double(length(x)) * if (is.double(x)) 8 else 4
    }, numeric(1)))
  }
  size
}

# The values of feature k (1-based) of a compiled model as doubles: a factor
# feature's levels mapped to the model's codes by name (a level unknown to the
# model, and NA, give NaN/NA); a feature without levels the way data.matrix()
# codes it (numbers as they are, logicals 0/1, factors by their own codes,
# character by the sorted distinct values of `ref`, the column of the data).
native_column <- function(nm, k, x, ref = x) {
  lv <- nm$feature_levels[[k]]
  if (!is.null(lv)) {
    if (is.factor(x)) return(as.double(match(levels(x), lv)[as.integer(x)]))
    return(as.double(match(as.character(x), lv)))
  }
  if (is.factor(x)) return(as.double(as.integer(x)))
  if (is.character(x)) return(as.double(match(x, levels(factor(ref)))))
  as.double(x)
}

# The model's features of `data` as the C++ side reads them, in place: a
# list of one double vector per feature (attribute "n": the rows). A double
# column the model reads as it is (no levels to map) is the data's own
# vector, not a copy; only the other columns are converted (native_column()).
native_columns <- function(nm, data) {
  if (is.matrix(data)) data <- as.data.frame(data)
  absent <- setdiff(nm$features, names(data))
  if (length(absent) > 0L) {
    cli::cli_abort("The data lack the model's variable{?s} {.val {absent}}.", call = NULL)
  }
  X <- lapply(seq_along(nm$features), function(k) {
    x <- data[[nm$features[k]]]
    if (native_in_place(nm, k, x)) x else native_column(nm, k, x)
  })
  structure(X, n = nrow(data))
}

# Does the C++ side read column x (feature k) as it is: a plain double
# vector without levels to map?
native_in_place <- function(nm, k, x) {
  is.double(x) && is.null(nm$feature_levels[[k]]) && is.null(attributes(x))
}

# The bytes native_columns() allocates for `data` (the converted columns).
native_columns_bytes <- function(nm, data) {
  own <- vapply(seq_along(nm$features), function(k) native_in_place(nm, k, data[[nm$features[k]]]), logical(1))
  8 * length(data[[1L]]) * sum(!own)
}

# The rows of native data (native_columns(), or a double matrix in tests).
native_n <- function(X) if (is.matrix(X)) nrow(X) else attr(X, "n")

# Predictions of stacked rows: row r is row rows[r] (1-based, or NULL for
# all rows of X in order) of the
# data with columns js (1-based columns of `data`) set to vals[[q]] (values of
# the column's type). X = native_columns(nm, data). Returns a matrix with one
# column per model output (named by nm$outputs). `leaves`: NULL, or a
# function giving the leaves of the rows of X (native_leaves()), which serve
# rows that change one of the model's features at most.
native_predict_rows <- function(nm, X, data, rows, js, vals, threads, leaves = NULL) {
  k <- match(names(data)[js], nm$features)
  use <- !is.na(k)
  vals <- lapply(which(use), function(q) native_column(nm, k[q], vals[[q]], data[[js[q]]]))
  if (sum(use) <= 1L && is.function(leaves)) {
    y <- native_eval_cached(nm, X, rows, k[use], vals, leaves(), threads)
    if (!is.null(y)) return(y)
  }
  native_eval(nm, X, rows, k[use], vals, threads)
}

# Predictions of rows `rows` (1-based) of X = native_columns(nm, data) with
# the one or two columns js (1-based, of `data`) set to the values of `grid`
# (a list of G values per column, of the columns' types, any order), by the
# set walk: observation-major ICE curves ((G rows) x outputs, row i's G
# predictions consecutive), or with weights w their weighted sums over the
# rows (G x outputs); equal to native_predict_rows() on the stacked rows up
# to the order of the sums. Columns the model does not read are left out
# (none left: one prediction per row, repeated).
native_free_rows <- function(nm, X, data, js, grid, rows, threads, w = NULL) {
  G <- length(grid[[1L]])
  k <- match(names(data)[js], nm$features)
  z <- lapply(which(!is.na(k)), function(q) native_column(nm, k[q], grid[[q]], data[[js[q]]]))
  k <- k[!is.na(k)]
  if (length(k) == 0L) {
    y <- native_eval(nm, X, rows, threads = threads)
    if (is.null(w)) return(y[rep(seq_along(rows), each = G), , drop = FALSE])
    return(matrix(colSums(y * w), G, ncol(y), byrow = TRUE))
  }
  if (length(k) == 1L) {
    if (is.null(w)) return(native_curves(nm, X, rows, k, z[[1L]], threads))
    return(native_partial_sums(nm, X, rows, w, k, z[[1L]], threads))
  }
  native_points(nm, X, rows, k[1L], k[2L], z[[1L]], z[[2L]], w, threads)
}

# ICE curves of column j over `grid` (values of the column's type).
native_ice_rows <- function(nm, X, data, j, grid, rows, threads) {
  native_free_rows(nm, X, data, j, list(grid), rows, threads)
}

# The exact grid of a numeric column x (named v) of a tree ensemble
# (variable_splits_type = "splits"): the points at which the model's splits
# of the column change side (native_splits()), within the data's range, and
# the range's ends. A tree ensemble's PD (and each ICE curve) is a step
# function of the column that changes only at those points, so the profile
# at them is exact everywhere: with the rule "left iff x <= t" the value at
# a point holds on (previous point, point] ("vh"), with "x < t" on [point,
# next point) ("hv"). The points are the thresholds themselves where the
# model compares doubles (ranger, randomForest, gbm, lightgbm); where it
# rounds x to single precision first (xgboost: x < t in float), the first
# double that rounds to the float t (every double from it on goes right,
# every one below it left), so that the data's own values (0.2 rounds up
# onto the threshold 0.2f = 0.20000000298...) take the side the model
# gives them. For a column of whole numbers (integer, Date) the whole
# numbers on both sides of each point. `nm`: the compiled model
# (splits_model()).
split_grid <- function(nm, x, v) {
  z <- scale_numbers(x, x)
  z <- z[!is.na(z)]
  lo <- min(z)
  hi <- max(z)
  k <- match(v, nm$features)
  t <- if (is.na(k)) numeric() else as.double(native_splits(nm, k))
  t <- t[t > lo & t < hi]
  if (whole_scale(x)) t <- c(floor(t), ceiling(t))
  column_values(x, sort(unique(c(lo, t, hi))))
}

# The compiled model whose splits make the grids of variable_splits_type =
# "splits": the setup's, or the model compiled for the purpose (the predict
# path may be in use), its features named as the native engine names them
# (a framework's columns, lightgbm's names with spaces); an error for a
# model the native engine does not compile.
splits_model <- function(setup) {
  nm <- setup$native$model %||% native_model_for(setup)
  if (is.character(nm)) {
    cli::cli_abort(c(
      "{.code variable_splits_type = \"splits\"} profiles at the split values of a tree ensemble; a {.cls {class(setup$model)[1L]}} model has none that modelprofiles can read.",
      i = "It reads the trees of ranger, randomForest, gbm, xgboost and lightgbm models; use {.val quantiles}, {.val uniform} or {.val distinct} for others."
    ), call = setup$error_call)
  }
  nm
}

# How the steps of an exact profile are drawn (ggplot2's geom_step()
# direction), the result's `$steps`: "vh" when the value at a grid point
# holds to its left, up to the previous point (x <= t goes left), "hv"
# when it holds to its right, up to the next point (x < t).
split_steps <- function(nm) {
  if (identical(as.integer(nm$rule), 1L)) "hv" else "vh"
}
