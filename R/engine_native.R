# The native engine: tree ensembles evaluated by the package's own C++ code
# (inst/include/modelprofiles/, through R/cpp.R), standing in for the
# model's own predict function.

# The native engine of a setup (prepare_engine()): list(model, X, bytes,
# leaves_bytes, memo), or NULL when the model cannot be compiled (an error
# for engine = "native"). `bytes`: what the compiled model and X take (in
# the memory budget, chunk_policy()); `leaves_bytes`: the background rows'
# leaves (native_leaf_source()), 0 beyond the budget's "native_leaves"
# share; `memo` keeps the leaves once computed, for the setup's lifetime.
# A framework's model (parsnip, workflows, caret, mlr3) is compiled through
# the model inside it (the adapter's `inner`, native_framework()), its
# predictions of a few background rows checked against the framework's own
# predict() (native_agrees()).
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
# complete) background rows, to 1e-9 relative (1e-5 in single precision,
# xgboost)? FALSE when the framework cannot predict them.
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

# The model the native engine compiles: the model inside a framework's, or
# the model.
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

# Is compiling the model of `inputs` and evaluating m stacked rows natively
# faster than predict()? Yes when it is compiled already (in the call's
# store), and for m of at least the adapter's `native_min_rows` (0 but for
# lightgbm, model_adapter.lgb.Booster()).
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
# background rows in order), without a data frame; rows that change one
# column at most from the background rows' leaves (native_leaf_source()).
native_predict_stacked <- function(setup, rows, cols, values) {
  nat <- setup$native
  m <- if (is.null(rows)) setup$n else length(rows)
  native_outputs(setup, native_predict_rows(nat$model, nat$X, setup$data, rows, cols, values,
                                            setup$threads, native_leaf_source(setup, m)))
}

# The leaves of the background rows in every tree, as a function that
# computes them once per setup (its memo): NULL when they do not fit in the
# memory budget. Computing them costs a prediction of every background row,
# so a request of fewer than a quarter of that many rows does not start it
# (but uses them once made).
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

# The set walk over background rows `rows` with the one or two columns js
# at each point of `grid` (a list of G values per column, of the columns'
# types): observation-major ICE curves, or with weights w their weighted
# sums over the rows (G x outputs); attribute "n", the predictions they
# stand for.
native_walk <- function(setup, js, grid, rows, w = NULL) {
  nat <- setup$native
  y <- native_free_rows(nat$model, nat$X, setup$data, js, grid, rows, setup$threads, w)
  structure(native_outputs(setup, y), n = length(grid[[1L]]) * length(rows))
}

# The profiled outputs of native predictions.
native_outputs <- function(setup, y) {
  y <- unname(y)
  if (ncol(y) > 1L) y <- y[, setup$outputs$columns, drop = FALSE]
  if (anyNA(y)) native_missing(setup)
  y
}

# A missing prediction of the native engine: a missing value in a column the
# model has no rule for (ranger's and randomForest's), named.
native_missing <- function(setup) {
  where <- missing_where(stats::setNames(setup$native$X, setup$native$model$features))
  if (!length(where)) {
    cli::cli_abort(c(
      "The native engine met a missing value that the model has no rule for.",
      i = "Use {.code engine = \"predict\"} to see what the model's own {.fn predict} does with it."
    ), call = setup$error_call)
  }
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
# feature's levels mapped to the model's codes by name (an unknown level
# and NA give NA); a feature without levels as data.matrix() codes it
# (logicals 0/1, factors by their codes, character by the sorted distinct
# values of `ref`, the data's column).
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

# The model's features of `data` as the C++ side reads them: a list of one
# double vector per feature (attribute "n": the rows); a double column
# without levels to map is the data's own vector, not a copy.
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

# Predictions of stacked rows (one column per output, named by nm$outputs):
# row r is row rows[r] (1-based, or NULL for all rows of X in order) of the
# data with columns js (of `data`) set to vals[[q]] (of the column's type).
# X = native_columns(nm, data). `leaves`: NULL, or a function giving the
# leaves of the rows of X, which serve rows that change one feature at most.
native_predict_rows <- function(nm, X, data, rows, js, vals, threads, leaves = NULL) {
  r <- native_read(nm, data, js, vals)
  if (length(r$k) <= 1L && is.function(leaves)) {
    y <- native_eval_cached(nm, X, rows, r$k, r$z, leaves(), threads)
    if (!is.null(y)) return(y)
  }
  native_eval(nm, X, rows, r$k, r$z, threads)
}

# The columns js of `data` that the model reads, as its features `k`, and
# their `values` (one vector per column of js) as its doubles `z`.
native_read <- function(nm, data, js, values) {
  k <- match(names(data)[js], nm$features)
  read <- which(!is.na(k))
  list(k = k[read], z = lapply(read, function(q) native_column(nm, k[q], values[[q]], data[[js[q]]])))
}

# native_walk() of rows `rows` (1-based) of X = native_columns(nm, data),
# the columns js of `data` at the points of `grid` (any order): equal to
# native_predict_rows() on the stacked rows up to the order of the sums.
# Columns the model does not read are left out (none left: one prediction
# per row, repeated).
native_free_rows <- function(nm, X, data, js, grid, rows, threads, w = NULL) {
  G <- length(grid[[1L]])
  r <- native_read(nm, data, js, grid)
  if (length(r$k) == 0L) {
    y <- native_eval(nm, X, rows, threads = threads)
    if (is.null(w)) return(y[rep(seq_along(rows), each = G), , drop = FALSE])
    return(matrix(colSums(y * w), G, ncol(y), byrow = TRUE))
  }
  if (length(r$k) == 1L) {
    if (is.null(w)) return(native_curves(nm, X, rows, r$k, r$z[[1L]], threads))
    return(native_partial_sums(nm, X, rows, w, r$k, r$z[[1L]], threads))
  }
  native_points(nm, X, rows, r$k[1L], r$k[2L], r$z[[1L]], r$z[[2L]], w, threads)
}

# The exact grid of a numeric column x (named v) of a tree ensemble `nm`
# (splits_model(); variable_splits_type = "splits"): the points where its
# splits of the column change side (native_splits()) within the data's
# range, and the range's ends. Its PD (and each ICE curve) is a step
# function changing only there, so the profile is exact everywhere: with
# "left iff x <= t" the value at a point holds on (previous point, point]
# ("vh"), with "x < t" on [point, next point) ("hv"). The points are the
# thresholds where the model compares doubles (ranger, randomForest, gbm,
# lightgbm); where it rounds x to float first (xgboost), the first double
# that rounds to the float t, so that the data's own values (0.2 rounds up
# onto 0.2f = 0.20000000298...) take the model's side. For whole numbers
# (integer, Date) the whole numbers on both sides of each point.
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
# "splits": the setup's, or compiled for the purpose (the predict path may
# be in use), its features named as the native engine names them; an error
# for a model the native engine does not compile.
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

# How the steps of an exact profile are drawn (geom_step()'s direction,
# the result's `$steps`, see split_grid()).
split_steps <- function(nm) {
  if (identical(as.integer(nm$rule), 1L)) "hv" else "vh"
}
