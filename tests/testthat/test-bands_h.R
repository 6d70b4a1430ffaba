# Bootstrap bands of the H-statistics (R/bands_h.R): each replicate against
# a brute-force computation of the statistics (hstats' definitions written
# out in plain R) on the resample's rows, each repeated as often as it is
# drawn; and the plumbing (no extra prediction, unchanged estimate,
# threads, plans, seeds, budget, plots).

# Friedman's H^2 by brute force, as hstats defines them, on the rows of D
# with weights v: for a set S of columns, T[i, k] = f(row i with the
# columns S of row k); PD_S at row k is the weighted mean of T[, k] over
# the rows i, PD_-S at row i the weighted mean of T[i, ] over the rows k.
# Every statistic is computed for every output column of f.
ref_h2 <- function(f, D, vars, pairs, v = rep(1, nrow(D))) {
  n <- nrow(D)
  wm <- function(a) colSums(v * a) / sum(v)
  cen <- function(a) a - rep(wm(a), each = n)
  zap <- function(x) ifelse(abs(x) < 1e-10 | !is.finite(x), 0, x)
  ratio <- function(a, b) ifelse(a == 0 & b == 0, 0, a / b)
  table_of <- function(S) {
    big <- D[rep(seq_len(n), times = n), , drop = FALSE]
    for (s in S) big[[s]] <- rep(D[[s]], each = n)
    y <- as.matrix(f(NULL, big))
    # cell [i, k, output]
    array(y, c(n, n, ncol(y)))
  }
  pd_at_k <- function(Tab) apply(Tab, c(2, 3), function(col) sum(v * col) / sum(v))
  pd_at_i <- function(Tab) apply(Tab, c(1, 3), function(row) sum(v * row) / sum(v))
  Fx <- cen(as.matrix(f(NULL, D)))
  Fj <- Fnot <- list()
  for (j in vars) {
    Tab <- table_of(j)
    Fj[[j]] <- cen(pd_at_k(Tab))
    Fnot[[j]] <- cen(pd_at_i(Tab))
  }
  den <- wm(Fx^2)
  C <- ncol(Fx)
  overall <- vapply(vars, function(j) ratio(zap(wm((Fx - Fj[[j]] - Fnot[[j]])^2)), den), numeric(C))
  total <- ratio(zap(wm((Fx - Reduce(`+`, Fj))^2)), den)
  pairwise <- vapply(pairs, function(pr) {
    F2 <- cen(pd_at_k(table_of(pr)))
    ratio(zap(wm((F2 - Fj[[pr[1]]] - Fj[[pr[2]]])^2)), wm(F2^2))
  }, numeric(C))
  keys <- vapply(pairs, paste, "", collapse = ":")
  # (Terms x outputs matrices.)
  list(overall = matrix(overall, length(vars), byrow = TRUE, dimnames = list(vars, NULL)),
       pairwise = matrix(pairwise, length(pairs), byrow = TRUE, dimnames = list(keys, NULL)),
       total = total)
}

hb_data <- function(n = 50, seed = 4) {
  set.seed(seed)
  X <- data.frame(a = rnorm(n), b = runif(n), c = factor(sample(c("x", "y", "z"), n, TRUE)),
                  d = round(rnorm(n), 1))
  X
}
hb_f <- function(m, nd) nd$a * nd$b + nd$a * (nd$c == "y") + nd$d + sin(nd$d * nd$b)

# Compare a result's replicate b with the brute force on resample b.
expect_replicate <- function(res, ref, b, labels = res$labels) {
  ov <- res$overall
  key <- paste(ov$variable, ov$label)
  for (c in seq_along(labels)) {
    k <- match(paste(rownames(ref$overall), labels[c]), key)
    expect_equal(res$replicates$overall[k, b], unname(ref$overall[, c]), tolerance = 1e-10,
                 label = paste("overall, resample", b, labels[c]))
    # (The pairs of ref are those computed: among res$pair_variables.)
    pw <- res$pairwise
    k <- match(paste(rownames(ref$pairwise), labels[c]),
               paste(paste(pw$variable1, pw$variable2, sep = ":"), pw$label))
    expect_false(anyNA(k))
    expect_equal(res$replicates$pairwise[k, b], unname(ref$pairwise[, c]), tolerance = 1e-10,
                 label = paste("pairwise, resample", b, labels[c]))
    expect_equal(unname(res$replicates$total[c, b]), unname(ref$total[c]), tolerance = 1e-10,
                 label = paste("total, resample", b, labels[c]))
  }
}

test_that("each replicate is the H-statistics of the resample's rows, by brute force", {
  X <- hb_data(70)
  B <- 10
  res <- h_statistic(NULL, X, predict_function = hb_f, N = 45, pairs = 3, bands = profile_bands("bootstrap", B = B), seed = 13)
  dr <- ref_draw(13, nrow(X), 45, B)
  expect_identical(res$rows, dr$rows)
  Xb <- X[dr$rows, ]
  pairs <- utils::combn(res$pair_variables, 2, simplify = FALSE)
  expect_length(pairs, 3)
  for (b in seq_len(B)) {
    D <- Xb[rep(seq_len(nrow(Xb)), dr$counts[, b]), ]
    expect_replicate(res, ref_h2(hb_f, D, res$variables, pairs), b)
  }
  # The estimate itself is the brute force on the rows.
  ref <- ref_h2(hb_f, Xb, res$variables, pairs)
  expect_equal(res$overall$h2, unname(ref$overall[res$overall$variable, 1]), tolerance = 1e-10)
  expect_equal(unname(res$total), unname(ref$total), tolerance = 1e-10)
  # The bands are the replicates' percentiles.
  q <- t(apply(res$replicates$overall, 1, quantile, c(0.025, 0.975), names = FALSE))
  expect_equal(cbind(res$overall$h2_lower, res$overall$h2_upper), q)
  q <- quantile(res$replicates$total, c(0.025, 0.975), names = FALSE)
  expect_equal(c(res$total_bands$h2_lower, res$total_bands$h2_upper), q)
  expect_identical(res$bands, list(type = "bootstrap", level = 0.95, B = 10L))
})

test_that("with case weights, a replicate weighs each row by its count times its weight", {
  X <- hb_data(40)
  w <- rep(c(1, 0, 2.5, 0.5), length.out = nrow(X))
  B <- 10
  res <- h_statistic(NULL, X, predict_function = hb_f, N = NULL, pairs = 2, weights = w,
                     bands = profile_bands("bootstrap", B = B), seed = 5)
  dr <- ref_draw(5, nrow(X), NULL, B, w)
  expect_identical(res$rows, dr$rows)
  Xb <- X[dr$rows, ]
  wb <- w[dr$rows]
  pairs <- utils::combn(res$pair_variables, 2, simplify = FALSE)
  for (b in seq_len(B)) {
    take <- rep(seq_len(nrow(Xb)), dr$counts[, b])
    expect_replicate(res, ref_h2(hb_f, Xb[take, ], res$variables, pairs, v = wb[take]), b)
  }
})

test_that("a multiclass model: replicates per class", {
  X <- hb_data(36)
  prob <- function(m, nd) {
    s <- cbind(lo = -hb_f(m, nd), mid = nd$a * nd$d, hi = hb_f(m, nd) * nd$b)
    p <- exp(s - apply(s, 1, max))
    p / rowSums(p)
  }
  B <- 10
  res <- h_statistic(NULL, X, predict_function = prob, N = NULL, pairs = 2, bands = profile_bands("bootstrap", B = B), seed = 2)
  expect_equal(res$labels, paste0("model.", c("lo", "mid", "hi")))
  dr <- ref_draw(2, nrow(X), NULL, B)
  pairs <- utils::combn(res$pair_variables, 2, simplify = FALSE)
  for (b in seq_len(B)) {
    D <- X[rep(seq_len(nrow(X)), dr$counts[, b]), ]
    expect_replicate(res, ref_h2(prob, D, res$variables, pairs), b)
  }
  expect_equal(dim(res$replicates$overall), c(4 * 3, B))
  expect_equal(rownames(res$replicates$total), res$labels)
})

test_that("bands change no estimate, make no prediction, and do not depend on threads, chunks or seeds' reuse", {
  X <- hb_data(60)
  h0 <- h_statistic(NULL, X, predict_function = hb_f, pairs = 3)
  h1 <- h_statistic(NULL, X, predict_function = hb_f, pairs = 3, bands = profile_bands("bootstrap", B = 20),
                    seed = 8, threads = 1)
  h2 <- h_statistic(NULL, X, predict_function = hb_f, pairs = 3, bands = profile_bands("bootstrap", B = 20),
                    seed = 8, threads = 2)
  h3 <- h_statistic(NULL, X, predict_function = hb_f, pairs = 3, bands = profile_bands("bootstrap", B = 20),
                    seed = 8, threads = 2, memory_budget = 0.4)
  expect_identical(h1$overall[c("variable", "label", "h2")], h0$overall)
  expect_identical(h1$pairwise[c("variable1", "variable2", "label", "h2")], h0$pairwise)
  expect_identical(h1$total, h0$total)
  expect_identical(h1$n_predictions, h0$n_predictions)
  expect_identical(h3$n_predictions, h0$n_predictions)
  expect_identical(h1$replicates, h2$replicates)
  expect_identical(h1$overall, h2$overall)
  # Smaller chunks add the same sums in other groupings.
  expect_equal(h3$replicates, h1$replicates, tolerance = 1e-12)
  # A seed reproduces; another one draws other resamples.
  h4 <- h_statistic(NULL, X, predict_function = hb_f, pairs = 3, bands = profile_bands("bootstrap", B = 20), seed = 8)
  expect_identical(h4$replicates, h1$replicates)
  h5 <- h_statistic(NULL, X, predict_function = hb_f, pairs = 3, bands = profile_bands("bootstrap", B = 20), seed = 9)
  expect_false(isTRUE(all.equal(h5$replicates$overall, h1$replicates$overall)))
  expect_null(h0$bands)
  expect_null(h0$replicates)
  expect_null(h0$total_bands)
})

test_that("a future plan gives the sequential plan's replicates", {
  skip_if_not_installed("future")
  skip_on_cran()
  X <- hb_data(40)
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  s <- h_statistic(NULL, X, predict_function = hb_f, pairs = 3, bands = profile_bands("bootstrap", B = 15),
                   seed = 3, memory_budget = 0.4)
  future::plan("multisession", workers = 2)
  m <- h_statistic(NULL, X, predict_function = hb_f, pairs = 3, bands = profile_bands("bootstrap", B = 15),
                   seed = 3, memory_budget = 0.4)
  expect_identical(m$replicates, s$replicates)
  expect_identical(m$overall, s$overall)
  expect_identical(m$n_predictions, s$n_predictions)
})

test_that("pairs reported as 0 without being computed have no replicates and no band", {
  set.seed(21)
  n <- 40
  X <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = runif(n))
  mixed <- function(m, nd) nd$x1 + nd$x2 + nd$x1 * nd$x2 + nd$x3
  r <- h_statistic(NULL, X, predict_function = mixed, bands = profile_bands("bootstrap", B = 12), seed = 1)
  expect_equal(r$pair_variables, c("x1", "x2"))
  pw <- r$pairwise
  out <- pw$variable2 == "x3"
  expect_equal(pw$h2[out], c(0, 0))
  expect_true(all(is.na(pw$h2_lower[out]) & is.na(pw$h2_upper[out])))
  expect_true(all(is.na(r$replicates$pairwise[out, ])))
  expect_false(anyNA(r$replicates$pairwise[!out, ]))
  # x3 has no interaction in any resample.
  expect_equal(r$replicates$overall[r$overall$variable == "x3", ], rep(0, 12))
  # No pairs.
  r0 <- h_statistic(NULL, X, predict_function = mixed, pairs = 0, bands = profile_bands("bootstrap", B = 12), seed = 1)
  expect_named(r0$pairwise, c("variable1", "variable2", "label", "h2", "h2_lower", "h2_upper"))
  expect_equal(dim(r0$replicates$pairwise), c(0, 12))
  expect_identical(r0$replicates$overall, r$replicates$overall)
})

test_that("bad band arguments and tables beyond the budget are errors that name the arguments", {
  X <- hb_data(30)
  expect_error(h_statistic(NULL, X, predict_function = hb_f, bands = "analytic"), "bands")
  expect_error(h_statistic(NULL, X, predict_function = hb_f, bands = profile_bands("bootstrap", B = 2)), "B")
  expect_error(h_statistic(NULL, X, predict_function = hb_f, bands = profile_bands("bootstrap", level = 2)), "level")
  n_calls <- 0
  counting <- function(m, nd) {
    n_calls <<- n_calls + 1
    hb_f(m, nd)
  }
  expect_error(
    h_statistic(NULL, hb_data(400), predict_function = counting, bands = profile_bands("bootstrap", B = 2000),
                memory_budget = 40),
    "B.*memory_budget"
  )
  # (Refused before any prediction but the probe of the outputs.)
  expect_lte(n_calls, 1)
})

test_that("print mentions the bands; plots draw them as error bars", {
  X <- hb_data(50)
  res <- h_statistic(NULL, X, predict_function = hb_f, pairs = 3, bands = profile_bands("bootstrap", level = 0.9, B = 20),
                     seed = 2)
  expect_output(print(res), "90% percentile intervals over B = 20")
  expect_identical(as.data.frame(res, what = "total"), res$total_bands)
  p <- plot(res)
  eb <- ggplot2::layer_data(p, 2)
  ok <- !is.na(c(res$overall$h2_lower, res$pairwise$h2_lower))
  expect_equal(sort(eb$xmin), sort(c(res$overall$h2_lower, res$pairwise$h2_lower)[ok]), tolerance = 1e-12)
  expect_equal(sort(eb$xmax), sort(c(res$overall$h2_upper, res$pairwise$h2_upper)[ok]), tolerance = 1e-12)
  # Each bar on its bar.
  bars <- ggplot2::layer_data(p, 1)
  expect_equal(sort(paste(eb$PANEL, eb$y)), sort(paste(bars$PANEL, bars$y)[seq_len(nrow(eb))]))
  expect_length(p$layers, 2L)
  expect_length(plot(res, bands = FALSE)$layers, 1L)
  h0 <- h_statistic(NULL, X, predict_function = hb_f, pairs = 3)
  expect_length(plot(h0)$layers, 1L)
  expect_identical(names(as.data.frame(h0, what = "total")), c("label", "h2"))
})

test_that("a replicate equals hstats on the resample's rows", {
  skip_if_not_installed("hstats")
  X <- hb_data(40)
  fit <- lm(y ~ a * b + a:c + d, data = cbind(X, y = hb_f(NULL, X)))
  res <- h_statistic(fit, X, N = NULL, pairs = 3, bands = profile_bands("bootstrap", B = 10), seed = 6)
  dr <- ref_draw(6, nrow(X), NULL, 10)
  for (b in c(1, 5, 10)) {
    D <- X[rep(seq_len(nrow(X)), dr$counts[, b]), ]
    H <- hstats::hstats(fit, D, pairwise_m = 3, verbose = FALSE)
    ov <- hstats::h2_overall(H, normalize = TRUE, squared = TRUE)$M
    expect_equal(res$replicates$overall[match(rownames(ov), res$overall$variable), b], unname(ov[, 1]),
                 tolerance = 1e-10)
  }
})

test_that("the native engine gives the replicates of predict()", {
  skip_if_not_installed("ranger")
  X <- hb_data(60)
  fit <- ranger::ranger(x = X, y = hb_f(NULL, X), num.trees = 20, seed = 1, num.threads = 1)
  nat <- h_statistic(fit, X, pairs = 3, engine = "native", bands = profile_bands("bootstrap", B = 10), seed = 4)
  pre <- h_statistic(fit, X, pairs = 3, engine = "predict", bands = profile_bands("bootstrap", B = 10), seed = 4)
  expect_identical(nat$engine, "native")
  expect_identical(pre$engine, "predict")
  expect_equal(nat$replicates, pre$replicates, tolerance = 1e-10)
  expect_identical(nat$n_predictions, pre$n_predictions)
})
