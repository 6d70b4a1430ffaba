# Friedman's H-statistics of interaction, as hstats::hstats() computes them.

#' Friedman's H-statistics of interaction
#'
#' `h_statistic()` measures how much of a model's predictions is due to
#' interactions, with the H-statistics of Friedman and Popescu (2008), in the
#' normalised and squared form of `hstats::hstats()` (Mayer, 2023): the
#' overall \eqn{H^2_j} of every variable (the share of the prediction
#' variance explained by the interactions of variable j with all others)
#' and the pairwise \eqn{H^2_{jk}} of the pairs among the `pairs` variables
#' with the strongest overall interaction. The numbers equal those of
#' `hstats::hstats()` on the same model, background rows and weights.
#'
#' @section Definitions:
#' For the n background rows \eqn{x_1, \dots, x_n} with weights
#' \eqn{w_i} (1 without `weights`), write \eqn{\bar a}{mean(a)} for the weighted mean
#' \eqn{\sum_i w_i a_i / \sum_i w_i}{sum_i w_i a_i / sum_i w_i} over the rows, and
#' \eqn{x_i^{S=z}}{x_i^{S=z}} for row i with the columns S set to z. Partial dependences are evaluated at the
#' rows' own values and centred:
#'
#' * \eqn{F(x_i) = f(x_i) - \bar f}{F(x_i) = f(x_i) - mean(f)}, the centred
#'   prediction;
#' * \eqn{F_j(x_i^j) = PD_j(x_i^j) - \overline{PD_j}}{F_j = PD_j - mean(PD_j)}
#'   with \eqn{PD_j(z) = \sum_k w_k f(x_k^{j=z}) / \sum_k w_k}{PD_j(z) = weighted mean_k f(x_k^{j=z})},
#'   the partial dependence on variable j;
#' * \eqn{F_{-j}(x_i^{-j})}{F_-j}, the same for the complement of j (all
#'   other columns of `data`, also those not in `variables`):
#'   \eqn{PD_{-j}(x_i^{-j}) = \sum_k w_k f(x_i^{j=x_k^j}) / \sum_k w_k}{PD_-j(x_i) = weighted mean_k f(x_i with x^j = x_k^j)};
#' * \eqn{F_{jk}}, the same for the pair (j, k).
#'
#' Then, as in `hstats::h2_overall()` and `hstats::h2_pairwise()` with their
#' defaults (`normalize = TRUE`, `squared = TRUE`):
#' \deqn{H^2_j = \frac{\overline{(F - F_j - F_{-j})^2}}{\overline{F^2}}, \qquad
#'   H^2_{jk} = \frac{\overline{(F_{jk} - F_j - F_k)^2}}{\overline{F_{jk}^2}}.}{H2_j = mean((F - F_j - F_-j)^2) / mean(F^2),
#'   H2_jk = mean((F_jk - F_j - F_k)^2) / mean(F_jk^2).}
#' The numerators are set to 0 when they are below `1e-10` (an absolute
#' threshold, hstats' `eps`) or not finite, and a ratio 0/0 (a zero
#' numerator over a zero denominator, e.g. a constant model) is 0. \eqn{H^2_j}
#' is the share of the prediction variance that the interactions of j with
#' the other variables explain; \eqn{H^2_{jk}} the share of the variance of
#' the pair's joint effect that their interaction explains. Take square
#' roots for Friedman's unsquared H. `$total` is hstats' `h2()`, the share of
#' the prediction variance not explained by the main effects of `variables`:
#' \eqn{\overline{(F - \sum_j F_j)^2} / \overline{F^2}}{mean((F - sum_j F_j)^2) / mean(F^2)}.
#'
#' @section Pairs:
#' As in hstats (`pairwise_m`), pairwise statistics are computed for the
#' pairs among the `pairs` variables with the largest overall numerator
#' \eqn{\overline{(F - F_j - F_{-j})^2}}{mean((F - F_j - F_-j)^2)}
#' (those above 0; for several classes, the union over the classes).
#' When fewer than `pairs` variables have a positive numerator, the others
#' (in the order of `variables`) fill the set and their pairs are reported
#' with \eqn{H^2_{jk} = 0} without being computed, as hstats reports them.
#' `pairs = 0` (or 1) skips the pairwise statistics.
#'
#' @section Computation:
#' Every partial dependence is evaluated at the values that occur among the
#' background rows (each distinct value, or pair of values, once; all
#' values are compared exactly, `NA` included): variable j costs n times
#' \eqn{u_j} predictions, \eqn{u_j} its number of distinct values, and one
#' table of them gives \eqn{PD_j} (means over the rows), \eqn{PD_{-j}}
#' (means over the values, weighted by how often each occurs) and the
#' predictions at the rows themselves (the table's cells at the rows' own
#' values): n times \eqn{\sum_j u_j}{sum_j u_j} predictions for the one-way
#' statistics, where hstats makes n times \eqn{1 + 2 \sum_j u_j}{1 + 2 sum_j u_j}
#' (it predicts the two tables separately and the rows once more). A pair
#' costs n times its number of distinct pairs of values, as in hstats. The tables are predicted in chunks of stacked
#' rows (each background row repeated over the values consecutively; the
#' tables of several variables share a chunk when they are small) under
#' `memory_budget`, so no table of n x n rows is built beyond one chunk;
#' the sums run in C++. `n_predictions` in the result counts the
#' predictions. The cost grows with \eqn{n^2}: `N` (hstats' `n_max`, 500 by
#' default as there) keeps it bounded.
#'
#' @inheritParams model_profile
#' @param variables Names of the variables whose H-statistics are computed,
#'   at least 2; `NULL` for every column of `data` (except a `weights`
#'   column named by `weights`). All columns of `data` are passed to the
#'   model either way.
#' @param pairs Number of variables (those with the strongest overall
#'   interaction) among which pairwise statistics are computed: up to
#'   `pairs * (pairs - 1) / 2` pairs; 0 or 1 for none. hstats' `pairwise_m`.
#' @param weights `NULL`, the name of a column of `data`, or a vector with one
#'   non-negative case weight per row of `data` (an explainer's `weights` by
#'   default): every mean above is then weighted, as `hstats::hstats(w = )`
#'   weights it (the partial dependences, their centring, the numerators and
#'   denominators). The `N` rows are drawn without weights and keep theirs;
#'   rows of weight 0 are left out, which changes nothing. With integer
#'   weights, a row of weight 2 gives what the row repeated twice gives.
#' @param class For classifiers whose predict function returns a column of
#'   probabilities per class: the class (name or column number), or several;
#'   by default the second of two classes, or every class of a multiclass
#'   model, each with its own statistics labelled `<label>.<class>` (see
#'   [default_predict_function()]). Pairs are chosen from the union over the
#'   classes of each class's strongest variables, as hstats chooses them.
#' @param N Number of background rows to sample when `data` has more
#'   (hstats' `n_max`); `NULL` uses all rows. The cost grows with the square
#'   of the number of rows.
#'
#' @returns An object of class `mp_h_statistic`: a list with
#'   * `overall`: a data frame with columns `variable`, `label` and `h2`,
#'     one row per variable (and class), the variables in decreasing order
#'     of \eqn{H^2_j} (summed over the classes of a multiclass model);
#'   * `pairwise`: a data frame with columns `variable1`, `variable2`,
#'     `label` and `h2`, sorted the same way (no rows when `pairs < 2`);
#'   * `total`: the share of the prediction variance not explained by the
#'     main effects, one per label;
#'   * `variables`, `pair_variables` (the variables whose pairs were
#'     computed), `label`, `labels` (one per class), `class`, `N` (rows used),
#'     `n_data`, `rows` (which rows of `data`), `weights` (of the background
#'     rows, or `NULL`), `n_predictions`, `threads` and `call`.
#'
#' @references
#' Friedman, J. H. and Popescu, B. E. (2008). Predictive learning via rule
#' ensembles. *The Annals of Applied Statistics*, 2(3), 916--954.
#' \doi{10.1214/07-AOAS148}
#'
#' Friedman, J. H. (2001). Greedy function approximation: a gradient boosting
#' machine. *Annals of Statistics*, 29(5), 1189--1232.
#' \doi{10.1214/aos/1013203451}
#'
#' Mayer, M. (2023). hstats: Interaction Statistics. R package,
#' <https://github.com/ModelOriented/hstats>.
#'
#' @param engine `"auto"`, `"native"` or `"predict"`: how predictions are
#'   made, as in [model_profile()] (tree ensembles are evaluated by the
#'   package's C++ code with `"auto"`); `$engine` gives the one used.
#' @examples
#' fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
#' h <- h_statistic(fit, mtcars[c("wt", "hp", "qsec")])
#' h
#' plot(h)
#'
#' # A multiclass model: one statistic per class.
#' if (requireNamespace("nnet", quietly = TRUE)) {
#'   mn <- nnet::multinom(Species ~ ., data = iris, trace = FALSE)
#'   h_statistic(mn, iris[1:4], N = 60, seed = 1, pairs = 3)
#' }
#' @export
h_statistic <- function(x, data = NULL, predict_function = NULL, variables = NULL,
                        pairs = 5, N = 500, seed = NULL, weights = NULL, class = NULL,
                        label = NULL, threads = NULL,
                        memory_budget = getOption("modelprofiles.memory_budget", 256),
                        engine = c("auto", "native", "predict"), ...) {
  call <- match.call()
  env <- environment()
  engine <- rlang::arg_match(engine, error_call = env)
  if (...length() > 0L) {
    cli::cli_abort(c(
      "Unknown argument{?s}: {.arg {names(list(...))}}.",
      i = "See {.help modelprofiles::h_statistic} for the arguments."
    ), call = env)
  }
  if (missing(x)) cli::cli_abort("{.arg x} is missing: give a fitted model or an explainer.", call = env)

  inputs <- resolve_inputs(x, data, predict_function, label, env)
  data <- inputs$data
  label <- inputs$label
  weights <- resolve_weights(weights, x, data, env)
  if (!is.null(N)) N <- check_whole(N, "N", 2, env, hint = "Use {.code N = NULL} for all rows.")
  pairs <- check_whole(pairs, "pairs", 0, env)
  threads <- resolve_threads(threads, env)
  memory_budget <- check_budget(memory_budget, env)

  explicit <- !is.null(variables)
  if (!explicit) {
    variables <- names(data)
    if (is.character(attr(weights, "column"))) variables <- setdiff(variables, attr(weights, "column"))
  }
  variables <- check_variables(variables, data, env)
  variables <- finite_variables(data, variables, explicit, env)
  if (length(variables) < 2L) {
    cli::cli_abort(
      "H-statistics need at least 2 variables; {.arg variables} has {length(variables)}: {.val {variables}}.",
      call = env
    )
  }

  rows <- weighted_rows(sample_rows(nrow(data), N, seed), weights, env)
  background <- background_rows(data, rows)
  w <- if (is.null(weights)) rep(1, length(rows)) else as.double(weights[rows])
  ctx <- new_context(inputs$model, inputs$predict_function, unclass_frame(background), rows,
                     w, threads, memory_budget, class = class, call = env, engine = engine, adapter = inputs$adapter)
  labels <- output_labels(ctx, label)
  js <- match(variables, names(data))

  one <- h_one_way(ctx, js)
  f <- h_center(one$fitted, w)
  mean_f2 <- h_wmean(f^2, w)
  Fj <- lapply(one$pd, h_center, w = w)
  names(Fj) <- variables
  num <- matrix(0, length(js), length(labels), dimnames = list(variables, labels))
  for (a in seq_along(js)) {
    num[a, ] <- h_zap(h_wmean((f - Fj[[a]] - h_center(one$not[[a]], w))^2, w))
  }
  h2 <- h_ratio(num, matrix(mean_f2, nrow(num), ncol(num), byrow = TRUE))
  total <- h_ratio(rbind(h_zap(h_wmean((f - Reduce(`+`, Fj))^2, w))), rbind(mean_f2))[1L, ]
  names(total) <- labels

  # Pairs among the variables with the largest overall numerators.
  m <- min(pairs, length(variables))
  pair_vars <- character()
  h2_pairs <- NULL
  if (m >= 2L) {
    pair_vars <- h_pair_candidates(num, m)
    shown <- pair_vars
    if (length(shown) < m) shown <- c(shown, utils::head(setdiff(variables, shown), m - length(shown)))
    shown <- variables[variables %in% shown]
    all_pairs <- utils::combn(shown, 2L, simplify = FALSE)
    h2_pairs <- matrix(0, length(all_pairs), length(labels),
                       dimnames = list(vapply(all_pairs, paste, character(1), collapse = ":"), labels))
    if (length(pair_vars) >= 2L) {
      computed <- utils::combn(pair_vars, 2L, simplify = FALSE)
      Fjk <- h_two_way(ctx, lapply(computed, function(pr) match(pr, names(data))))
      for (a in seq_along(computed)) {
        pr <- computed[[a]]
        F2 <- h_center(Fjk[[a]], w)
        pnum <- h_zap(h_wmean((F2 - Fj[[pr[1L]]] - Fj[[pr[2L]]])^2, w))
        h2_pairs[paste(pr, collapse = ":"), ] <- h_ratio(rbind(pnum), rbind(h_wmean(F2^2, w)))
      }
    }
  }

  overall <- h_long(h2, labels)
  names(overall)[1L] <- "variable"
  pairwise <- data.frame(variable1 = character(), variable2 = character(), label = character(),
                         h2 = numeric(), stringsAsFactors = FALSE)
  if (!is.null(h2_pairs)) {
    long <- h_long(h2_pairs, labels)
    k <- match(long$term, rownames(h2_pairs))
    pairwise <- data.frame(
      variable1 = vapply(all_pairs, `[`, character(1), 1L)[k],
      variable2 = vapply(all_pairs, `[`, character(1), 2L)[k],
      label = long$label, h2 = long$h2, stringsAsFactors = FALSE
    )
  }
  structure(
    list(
      overall = overall,
      pairwise = pairwise,
      total = total,
      variables = variables,
      pair_variables = pair_vars,
      label = label,
      labels = labels,
      class = ctx$outputs$classes,
      N = length(rows),
      n_data = nrow(data),
      rows = rows,
      weights = if (!is.null(weights)) w,
      n_predictions = ctx$n_predictions,
      threads = threads,
      engine = ctx$engine,
      call = call
    ),
    class = "mp_h_statistic"
  )
}

# Weighted column means of an n x outputs matrix, and the matrix centred
# with them (hstats' wcolMeans() and wcenter()).
h_wmean <- function(M, w) colSums(w * M) / sum(w)

h_center <- function(M, w) M - rep(h_wmean(M, w), each = nrow(M))

# hstats' .zap_small(): numerators below eps (absolute) or not finite are 0.
h_zap <- function(x, eps = 1e-10) {
  x[abs(x) < eps | !is.finite(x)] <- 0
  x
}

# Normalised statistic: num / denom, with 0/0 (NaN) reported as 0.
h_ratio <- function(num, denom) {
  out <- num / denom
  out[is.nan(out)] <- 0
  out
}

# hstats' get_v(): per output, the (at most m) variables with the largest
# positive numerators (ties in the order of the variables); their union
# over the outputs, in the order of the variables.
h_pair_candidates <- function(num, m) {
  v <- rownames(num)
  cand <- character()
  for (c in seq_len(ncol(num))) {
    vv <- num[, c]
    pos <- which(vv > 0)
    pos <- pos[order(-vv[pos])]
    cand <- union(cand, v[utils::head(pos, m)])
  }
  v[v %in% cand]
}

# A statistics matrix (terms x labels) as a long data frame: terms in
# decreasing order of their statistics summed over the labels (as hstats
# sorts), each with its labels in order.
h_long <- function(M, labels) {
  o <- order(-rowSums(M))
  M <- M[o, , drop = FALSE]
  data.frame(
    term = rep(rownames(M), each = ncol(M)),
    label = rep(labels, times = nrow(M)),
    h2 = as.vector(t(M)),
    stringsAsFactors = FALSE
  )
}

# The distinct values (or tuples of values) of the columns js among the
# background rows: `first`, the first row with each, and `index`, which of
# them each row has. Values are compared exactly (NA included).
h_distinct <- function(ctx, js) {
  key <- NULL
  for (j in js) {
    col <- ctx$data[[j]]
    if (is.factor(col)) col <- as.integer(col)
    first <- which(!duplicated(col))
    code <- match(col, col[first])
    # (In doubles: the product of the numbers of values overflows an integer.)
    key <- if (is.null(key)) code else key + (code - 1) * as.double(max(key))
  }
  first <- which(!duplicated(key))
  list(first = first, index = match(key, key[first]))
}

# One-way quantities for each variable j in js, from one table of
# predictions per variable: every background row i with x^j set to each of
# the u distinct values of x^j among the rows. Of this u x n table,
#   PD_j(value)   = weighted mean over the rows i (weights w_i),
#   PD_-j(row i)  = weighted mean over the values (weights: the summed w_i
#                   of the rows with that value),
#   f(x_i)        = the cell of row i at its own value.
# Returns per variable the n x outputs matrices pd (PD_j at the rows' own
# values) and not (PD_-j), and `fitted`, the predictions at the rows.
h_one_way <- function(ctx, js) {
  n <- length(ctx$ids)
  C <- n_outputs(ctx)
  w <- ctx$weights
  tasks <- lapply(js, function(j) {
    d <- h_distinct(ctx, j)
    G <- length(d$first)
    d$js <- j
    d$G <- G
    d$W <- as.vector(rowsum(w, d$index, reorder = TRUE))
    d
  })
  sums <- lapply(tasks, function(tk) matrix(0, tk$G, C))
  not <- lapply(tasks, function(tk) matrix(0, n, C))
  fitted <- matrix(0, n, C)
  consume <- function(t, pos, y) {
    tk <- tasks[[t]]
    G <- tk$G
    m <- length(pos)
    off <- as.integer(G * (0:m))
    Wm <- rep(tk$W, times = m)
    for (c in seq_len(C)) {
      sums[[t]][, c] <<- sums[[t]][, c] + cpp_grid_sums(y, G, w[pos], ctx$threads, c - 1L)
      not[[t]][pos, c] <<- cpp_group_sums(y, Wm, off, ctx$threads, c - 1L)$sum / sum(tk$W)
    }
    if (t == 1L) fitted[pos, ] <<- y[G * (seq_len(m) - 1L) + tk$index[pos], , drop = FALSE]
  }
  h_predict_tasks(ctx, tasks, consume)
  pd <- lapply(seq_along(tasks), function(t) {
    sums[[t]][tasks[[t]]$index, , drop = FALSE] / sum(w)
  })
  list(pd = pd, not = not, fitted = fitted)
}

# Partial dependence of each pair (a vector of two column indices) at the
# rows' own pairs of values: n x outputs matrices.
h_two_way <- function(ctx, pairs) {
  C <- n_outputs(ctx)
  w <- ctx$weights
  tasks <- lapply(pairs, function(js) {
    d <- h_distinct(ctx, js)
    d$js <- js
    d$G <- length(d$first)
    d
  })
  sums <- lapply(tasks, function(tk) matrix(0, tk$G, C))
  consume <- function(t, pos, y) {
    for (c in seq_len(C)) {
      sums[[t]][, c] <<- sums[[t]][, c] +
        cpp_grid_sums(y, tasks[[t]]$G, w[pos], ctx$threads, c - 1L)
    }
  }
  h_predict_tasks(ctx, tasks, consume)
  lapply(seq_along(tasks), function(t) {
    sums[[t]][tasks[[t]]$index, , drop = FALSE] / sum(w)
  })
}

# Predict the tables of several tasks in chunks. Task t is a G_t x n table:
# every background row i stacked G_t times (consecutively), with the
# columns tasks[[t]]$js set to the values of rows tasks[[t]]$first. The
# (row, task) blocks are packed in order into chunks of at most
# ctx$chunk_rows rows (a block larger than that is a chunk of its own), so
# that small tables share predict() calls. consume(t, pos, y) receives the
# predictions of task t for background rows pos: a (G_t * length(pos)) x
# outputs matrix, grid fastest.
h_predict_tasks <- function(ctx, tasks, consume) {
  n <- length(ctx$ids)
  pieces <- list()
  used <- 0
  for (t in seq_along(tasks)) {
    G <- tasks[[t]]$G
    start <- 1L
    while (start <= n) {
      room <- floor((ctx$chunk_rows - used) / G)
      if (room < 1) {
        if (used > 0) {
          h_predict_chunk(ctx, tasks, pieces, consume)
          pieces <- list()
          used <- 0
          next
        }
        room <- 1
      }
      end <- min(n, start + room - 1)
      pieces[[length(pieces) + 1L]] <- list(t = t, pos = start:end)
      used <- used + G * (end - start + 1)
      start <- end + 1L
    }
  }
  if (length(pieces)) h_predict_chunk(ctx, tasks, pieces, consume)
  invisible(NULL)
}

# One chunk: the pieces stacked into one data frame, predicted at once. A
# column set by some pieces keeps, in the others, the rows' own values.
h_predict_chunk <- function(ctx, tasks, pieces, consume) {
  sizes <- vapply(pieces, function(p) tasks[[p$t]]$G * length(p$pos), numeric(1))
  src <- unlist(lapply(pieces, function(p) rep(p$pos, each = tasks[[p$t]]$G)))
  js <- sort(unique(unlist(lapply(pieces, function(p) tasks[[p$t]]$js))))
  vals <- lapply(js, function(j) {
    idx <- unlist(lapply(pieces, function(p) {
      tk <- tasks[[p$t]]
      if (j %in% tk$js) rep(tk$first, times = length(p$pos)) else rep(p$pos, each = tk$G)
    }))
    ctx$data[[j]][idx]
  })
  y <- predict_stacked(ctx, src - 1L, js, vals)
  if (length(pieces) == 1L) {
    consume(pieces[[1L]]$t, pieces[[1L]]$pos, y)
    return(invisible(NULL))
  }
  end <- cumsum(sizes)
  for (a in seq_along(pieces)) {
    r <- seq.int(end[a] - sizes[a] + 1, end[a])
    consume(pieces[[a]]$t, pieces[[a]]$pos, y[r, , drop = FALSE])
  }
  invisible(NULL)
}

#' Print, convert and plot H-statistics
#'
#' @param x,object An `mp_h_statistic` result of [h_statistic()].
#' @param n Number of rows of each table to show.
#' @param what `"overall"` or `"pairwise"`: which statistics.
#' @param row.names,optional Ignored; for compatibility with the generic.
#' @param which `"both"` (overall and pairwise statistics in two panels, or
#'   the overall ones alone when there are no pairs), `"overall"` or
#'   `"pairwise"`.
#' @param top Show at most this many variables (or pairs) per panel, those
#'   with the largest statistics; `NULL` for all.
#' @param title,subtitle Title and subtitle of the chart.
#' @param ... Ignored by `print()` and `as.data.frame()`; passed on by
#'   `plot()` to `autoplot()`.
#' @returns `print()` returns `x` invisibly; `as.data.frame()` the requested
#'   data frame; `autoplot()` and `plot()` a ggplot object: horizontal bars
#'   of \eqn{H^2}, largest on top, one panel per kind of statistic, coloured
#'   by label when there are several (classes of a multiclass model).
#' @examples
#' fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
#' h <- h_statistic(fit, mtcars[c("wt", "hp", "qsec")])
#' print(h, n = 2)
#' as.data.frame(h, what = "pairwise")
#' plot(h, which = "overall")
#' @name mp_h_statistic-methods
NULL

#' @rdname mp_h_statistic-methods
#' @export
print.mp_h_statistic <- function(x, n = 10, ...) {
  cli::cat_line(
    "<mp_h_statistic> Friedman's H-statistics (squared, normalised) of ",
    length(x$variables), " variables for ", encodeString(x$label, quote = "\"")
  )
  rows <- if (x$N < x$n_data) paste0(x$N, " of ", x$n_data) else paste0("all ", x$N)
  cli::cat_line(
    "  background rows: ", rows,
    "; predictions: ", format(x$n_predictions, big.mark = ","),
    "; threads: ", x$threads
  )
  if (length(x$class)) {
    cli::cat_line("  class", if (length(x$class) > 1L) "es", ": ", paste(x$class, collapse = ", "))
  }
  if (!is.null(x$weights)) {
    cli::cat_line("  case weights: ", format(sum(x$weights), digits = 6), " in total")
  }
  cli::cat_line("  share of the prediction variance from interactions (total): ",
                paste0(if (length(x$total) > 1L) paste0(names(x$total), " "), format(x$total, digits = 4),
                       collapse = ", "))
  cli::cat_line("Overall H^2 ($overall):")
  print(utils::head(x$overall, n), row.names = FALSE)
  if (nrow(x$pairwise)) {
    cli::cat_line("Pairwise H^2 ($pairwise):")
    print(utils::head(x$pairwise, n), row.names = FALSE)
  } else {
    cli::cat_line("No pairwise statistics.")
  }
  invisible(x)
}

#' @rdname mp_h_statistic-methods
#' @export
as.data.frame.mp_h_statistic <- function(x, row.names = NULL, optional = FALSE, ...,
                                         what = c("overall", "pairwise")) {
  what <- match.arg(what)
  x[[what]]
}

#' @rdname mp_h_statistic-methods
#' @exportS3Method ggplot2::autoplot
autoplot.mp_h_statistic <- function(object, ..., which = c("both", "overall", "pairwise"),
                                    top = NULL, title = NULL, subtitle = NULL) {
  which <- match.arg(which)
  check_plot_dots(list(...), "autoplot.mp_h_statistic")
  if (!is.null(top)) top <- check_whole(top, "top", 1, rlang::current_env())
  parts <- list()
  if (which %in% c("both", "overall")) {
    d <- object$overall
    parts$overall <- data.frame(statistic = "overall", term = d$variable, label = d$label,
                                h2 = d$h2, stringsAsFactors = FALSE)
  }
  if (which %in% c("both", "pairwise")) {
    d <- object$pairwise
    if (nrow(d)) {
      parts$pairwise <- data.frame(statistic = "pairwise", term = paste(d$variable1, d$variable2, sep = ":"),
                                   label = d$label, h2 = d$h2, stringsAsFactors = FALSE)
    } else if (which == "pairwise") {
      cli::cli_abort("The result has no pairwise statistics (computed with {.code pairs < 2}).")
    }
  }
  # Terms in their order (decreasing), the first on top; at most `top` per panel.
  parts <- lapply(parts, function(d) {
    terms <- unique(d$term)
    if (!is.null(top)) terms <- utils::head(terms, top)
    d <- d[d$term %in% terms, , drop = FALSE]
    d$term <- paste0(d$statistic, "\r", d$term)
    d
  })
  d <- do.call(rbind, unname(parts))
  d$term <- factor(d$term, levels = rev(unique(d$term)))
  d$statistic <- factor(d$statistic, levels = c("overall", "pairwise"))
  d$label <- factor(d$label, levels = object$labels)
  several <- length(object$labels) > 1L
  bars <- if (several) {
    ggplot2::geom_col(ggplot2::aes(fill = .data$label),
                      position = ggplot2::position_dodge(width = 0.9), width = 0.8)
  } else {
    ggplot2::geom_col(fill = "#4378bf", width = 0.8)
  }
  p <- ggplot2::ggplot(d, ggplot2::aes(x = .data$h2, y = .data$term)) +
    bars +
    ggplot2::scale_y_discrete(labels = function(z) sub("^[^\r]*\r", "", z)) +
    ggplot2::labs(x = "H\u00b2 (share of the prediction variance)", y = NULL,
                  fill = NULL, title = title, subtitle = subtitle)
  if (length(parts) > 1L) {
    p <- p + ggplot2::facet_wrap(ggplot2::vars(.data$statistic), ncol = 1L, scales = "free_y")
  }
  p + ggplot2::theme_bw() +
    ggplot2::theme(
      legend.position = if (several) "bottom" else "none",
      strip.background = ggplot2::element_rect(fill = "grey95"),
      panel.grid.minor = ggplot2::element_blank()
    )
}

#' @rdname mp_h_statistic-methods
#' @export
plot.mp_h_statistic <- function(x, ...) {
  autoplot.mp_h_statistic(x, ...)
}
