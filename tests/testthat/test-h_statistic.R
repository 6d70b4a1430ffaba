# Friedman's H-statistics against hstats::hstats() (its defaults: normalised,
# squared, eps = 1e-10, pairwise_m = 5) and against closed forms.

# hstats' statistics as long data frames keyed like ours.
hs_long <- function(M, labels) {
  data.frame(term = rep(rownames(M), each = ncol(M)), label = rep(labels, times = nrow(M)),
             h2 = as.vector(t(M)), stringsAsFactors = FALSE)
}

expect_hstats_equal <- function(res, H, labels = res$labels, cols = NULL) {
  ov <- hstats::h2_overall(H)$M
  if (!is.null(cols)) ov <- ov[, cols, drop = FALSE]
  ref <- hs_long(ov, labels)
  ours <- res$overall
  expect_setequal(paste(ours$variable, ours$label), paste(ref$term, ref$label))
  k <- match(paste(ref$term, ref$label), paste(ours$variable, ours$label))
  expect_equal(ours$h2[k], ref$h2, tolerance = 1e-10)
  pw <- hstats::h2_pairwise(H)$M
  if (is.null(pw)) {
    expect_equal(nrow(res$pairwise), 0)
  } else {
    if (!is.null(cols)) pw <- pw[, cols, drop = FALSE]
    ref <- hs_long(pw, labels)
    key <- paste0(res$pairwise$variable1, ":", res$pairwise$variable2, " ", res$pairwise$label)
    expect_setequal(key, paste(ref$term, ref$label))
    expect_equal(res$pairwise$h2[match(paste(ref$term, ref$label), key)], ref$h2, tolerance = 1e-10)
  }
  tot <- hstats::h2(H)$M
  if (!is.null(cols)) tot <- tot[, cols, drop = FALSE]
  expect_equal(unname(res$total), as.vector(tot), tolerance = 1e-10)
}

# Overall and pairwise tables are sorted by the statistic summed over labels.
expect_sorted <- function(res) {
  s <- tapply(res$overall$h2, factor(res$overall$variable, unique(res$overall$variable)), sum)
  expect_false(is.unsorted(rev(s)))
  if (nrow(res$pairwise)) {
    key <- paste(res$pairwise$variable1, res$pairwise$variable2)
    s <- tapply(res$pairwise$h2, factor(key, unique(key)), sum)
    expect_false(is.unsorted(rev(s)))
  }
}

h_fixture <- function(n = 150) {
  set.seed(11)
  X <- data.frame(
    a = rnorm(n), b = runif(n), c = factor(sample(c("x", "y", "z"), n, TRUE)),
    d = round(rnorm(n), 1), e = sample(1:4, n, TRUE)
  )
  X$y <- X$a * X$b + X$a * (X$c == "y") + X$d + X$e + rnorm(n) * 0.1
  X
}

test_that("H-statistics of an lm with interactions equal hstats", {
  skip_if_not_installed("hstats")
  X <- h_fixture()
  fit <- lm(y ~ a * b + a:c + d * e + I(d^2), data = X)
  Xb <- X[c("a", "b", "c", "d", "e")]
  res <- h_statistic(fit, Xb)
  expect_s3_class(res, "mp_h_statistic")
  H <- hstats::hstats(fit, Xb, verbose = FALSE)
  expect_hstats_equal(res, H)
  expect_sorted(res)
  expect_named(res$overall, c("variable", "label", "h2"))
  expect_named(res$pairwise, c("variable1", "variable2", "label", "h2"))
  expect_equal(res$overall$variable[1], "a")
  expect_equal(nrow(res$pairwise), 10)
  # One table of predictions per variable (n x distinct values) and per pair.
  u <- vapply(Xb, function(z) length(unique(z)), numeric(1))
  pair_u <- vapply(utils::combn(names(Xb), 2, simplify = FALSE), function(pr) {
    nrow(unique(Xb[pr]))
  }, numeric(1))
  expect_equal(res$n_predictions, nrow(Xb) * (sum(u) + sum(pair_u)))
  # A subset of variables: the others stay as they are in every prediction.
  res2 <- h_statistic(fit, Xb, variables = c("a", "b", "d"), pairs = 2)
  H2 <- hstats::hstats(fit, Xb, v = c("a", "b", "d"), pairwise_m = 2, verbose = FALSE)
  expect_hstats_equal(res2, H2)
  expect_equal(nrow(res2$pairwise), 1)
  # No pairs.
  res0 <- h_statistic(fit, Xb, pairs = 0)
  expect_equal(nrow(res0$pairwise), 0)
  expect_equal(res0$overall, res$overall)
  expect_output(print(res), "Friedman's H-statistics")
  expect_output(print(res0), "No pairwise statistics")
  expect_identical(as.data.frame(res, what = "pairwise"), res$pairwise)
  expect_identical(as.data.frame(res), res$overall)
})

test_that("threads and chunking (small tables sharing predict() calls) do not change the numbers", {
  X <- h_fixture(80)
  fit <- lm(y ~ a * b + a:c + d * e, data = X)
  Xb <- X[c("a", "b", "c", "d", "e")]
  r1 <- h_statistic(fit, Xb, threads = 1)
  r2 <- h_statistic(fit, Xb, threads = 2, memory_budget = 0.01)
  r3 <- h_statistic(fit, Xb, threads = 2, memory_budget = 1e-5)
  expect_equal(r1$overall, r2$overall, tolerance = 1e-12)
  expect_equal(r1$pairwise, r2$pairwise, tolerance = 1e-12)
  expect_equal(r1$overall, r3$overall, tolerance = 1e-12)
  expect_equal(r1$pairwise, r3$pairwise, tolerance = 1e-12)
  expect_equal(r1$n_predictions, r3$n_predictions)
})

test_that("H-statistics of a ranger regression equal hstats", {
  skip_if_not_installed("hstats")
  skip_if_not_installed("ranger")
  X <- h_fixture(120)
  fit <- ranger::ranger(y ~ ., data = X, num.trees = 30, seed = 1, num.threads = 1)
  Xb <- X[c("a", "b", "c", "d", "e")]
  res <- h_statistic(fit, Xb, pairs = 4)
  H <- hstats::hstats(fit, Xb, pairwise_m = 4, verbose = FALSE, num.threads = 1)
  expect_hstats_equal(res, H)
  expect_sorted(res)
})

test_that("case weights: equal to hstats with w, and rows of weight 0 are as absent", {
  skip_if_not_installed("hstats")
  X <- h_fixture(100)
  fit <- lm(y ~ a * b + a:c + d * e, data = X)
  Xb <- X[c("a", "b", "c", "d", "e")]
  set.seed(3)
  w <- sample(0:3, nrow(Xb), replace = TRUE)
  res <- h_statistic(fit, Xb, weights = w)
  H <- hstats::hstats(fit, Xb, w = w, verbose = FALSE)
  expect_hstats_equal(res, H)
  expect_equal(res$rows, which(w > 0))
  expect_equal(res$weights, as.double(w[w > 0]))
  # Integer weights are replicated rows.
  rep_rows <- Xb[rep(seq_len(nrow(Xb)), w), ]
  rr <- h_statistic(fit, rep_rows)
  expect_equal(rr$overall, res$overall, tolerance = 1e-10)
  expect_equal(rr$pairwise, res$pairwise, tolerance = 1e-10)
  # A weights column named in `weights` is not a variable, and is passed on.
  Xw <- cbind(Xb, w = w)
  rw <- h_statistic(fit, Xw, weights = "w")
  expect_equal(rw$variables, names(Xb))
  expect_equal(rw$overall, res$overall, tolerance = 1e-12)
  Hw <- hstats::hstats(fit, Xw, w = "w", verbose = FALSE)
  expect_hstats_equal(rw, Hw)
})

test_that("multiclass ranger probability forest: one statistic per class, equal to hstats", {
  skip_if_not_installed("hstats")
  skip_if_not_installed("ranger")
  fit <- ranger::ranger(Species ~ ., data = iris, num.trees = 25, probability = TRUE,
                        seed = 2, num.threads = 1)
  X <- iris[1:4]
  res <- h_statistic(fit, X, N = 90, seed = 5, pairs = 3)
  expect_equal(res$labels, paste0("ranger.", levels(iris$Species)))
  expect_equal(res$N, 90)
  H <- hstats::hstats(fit, X[res$rows, ], pairwise_m = 3, verbose = FALSE, num.threads = 1)
  expect_hstats_equal(res, H)
  expect_equal(nrow(res$overall), 4 * 3)
  expect_sorted(res)
  # One class.
  r1 <- h_statistic(fit, X, N = 90, seed = 5, pairs = 3, class = "versicolor")
  expect_equal(r1$labels, "ranger.versicolor")
  expect_equal(r1$overall$h2, res$overall$h2[res$overall$label == r1$labels][
    match(r1$overall$variable, res$overall$variable[res$overall$label == r1$labels])],
    tolerance = 1e-12)
})

test_that("N smaller than the data: the sampled rows, reproducibly, as hstats on those rows", {
  skip_if_not_installed("hstats")
  X <- h_fixture(300)
  fit <- lm(y ~ a * b + a:c + d * e, data = X)
  Xb <- X[c("a", "b", "c", "d", "e")]
  res <- h_statistic(fit, Xb, N = 70, seed = 9)
  expect_equal(res$N, 70)
  expect_length(res$rows, 70)
  expect_false(is.unsorted(res$rows))
  expect_identical(h_statistic(fit, Xb, N = 70, seed = 9)$overall, res$overall)
  H <- hstats::hstats(fit, Xb[res$rows, ], verbose = FALSE)
  expect_hstats_equal(res, H)
  expect_equal(h_statistic(fit, Xb, N = NULL)$N, 300)
})

test_that("closed forms: an additive model has no interaction; x1 * x2", {
  set.seed(21)
  n <- 60
  X <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = runif(n))
  X$x1 <- X$x1 - mean(X$x1)
  X$x2 <- X$x2 - mean(X$x2)
  add <- function(m, newdata) 2 * newdata$x1 + sin(newdata$x2) + newdata$x3^2
  r <- h_statistic(NULL, X, predict_function = add)
  expect_equal(r$overall$h2, rep(0, 3))
  expect_equal(r$pairwise$h2, rep(0, 3))
  expect_equal(unname(r$total), 0)
  expect_equal(r$pair_variables, character())
  # f = x1 * x2: no main effects (the means of x1 and x2 are 0), pure interaction.
  prod12 <- function(m, newdata) newdata$x1 * newdata$x2
  r <- h_statistic(NULL, X[c("x1", "x2")], predict_function = prod12)
  expect_equal(r$overall$h2, c(1, 1), tolerance = 1e-10)
  expect_equal(r$pairwise$h2, 1, tolerance = 1e-10)
  # f = x1 + x2 + x1 x2 + x3: H2_1 = H2_2 = var(x1 x2) / var(f), H2_3 = 0,
  # pairwise H2_12 = var(x1 x2) / var(x1 + x2 + x1 x2).
  mixed <- function(m, newdata) newdata$x1 + newdata$x2 + newdata$x1 * newdata$x2 + newdata$x3
  r <- h_statistic(NULL, X, predict_function = mixed)
  pvar <- function(z) mean((z - mean(z))^2)
  p12 <- X$x1 * X$x2
  h2 <- stats::setNames(r$overall$h2, r$overall$variable)
  expect_equal(h2[["x1"]], pvar(p12) / pvar(mixed(NULL, X)), tolerance = 1e-10)
  expect_equal(h2[["x2"]], pvar(p12) / pvar(mixed(NULL, X)), tolerance = 1e-10)
  expect_equal(h2[["x3"]], 0)
  pw <- r$pairwise
  expect_equal(pw$h2[pw$variable1 == "x1" & pw$variable2 == "x2"],
               pvar(p12) / pvar(X$x1 + X$x2 + p12), tolerance = 1e-10)
  # x3 has no interaction: its pairs are reported as 0 without being computed.
  expect_equal(r$pair_variables, c("x1", "x2"))
  expect_equal(pw$h2[pw$variable2 == "x3"], c(0, 0))
  expect_equal(r$n_predictions, n * (3 * n + n))
  # A constant model: 0/0 is 0.
  r <- h_statistic(NULL, X, predict_function = function(m, newdata) rep(1, nrow(newdata)))
  expect_equal(r$overall$h2, rep(0, 3))
})

test_that("an explainer's model, data, predict function, label and weights are used", {
  X <- h_fixture(60)
  fit <- lm(y ~ a * b + d, data = X)
  Xb <- X[c("a", "b", "d")]
  w <- rep(1:2, 30)
  ex <- structure(list(model = fit, data = Xb, label = "mine", weights = w,
                       predict_function = function(m, newdata) stats::predict(m, newdata)),
                  class = "explainer")
  r <- h_statistic(ex)
  expect_equal(unique(r$overall$label), "mine")
  expect_equal(r$overall, h_statistic(fit, Xb, weights = w, label = "mine")$overall)
})

test_that("input errors name the problem", {
  X <- data.frame(a = 1:5, b = c(2, 1, 3, 5, 4), g = letters[1:5])
  pf <- function(m, newdata) newdata$a * newdata$b
  expect_error(h_statistic(), "x")
  expect_error(h_statistic(NULL, X, predict_function = pf, bogus = 1), "bogus")
  expect_error(h_statistic(NULL, predict_function = pf), "data")
  expect_error(h_statistic(NULL, X, predict_function = pf, variables = c("a", "zz")), "zz")
  expect_error(h_statistic(NULL, X, predict_function = pf, variables = "a"), "at least 2 variables")
  expect_error(h_statistic(NULL, X, predict_function = pf, variables = c("a", NA)), "character vector")
  expect_error(h_statistic(NULL, X, predict_function = pf, pairs = -1), "pairs")
  expect_error(h_statistic(NULL, X, predict_function = pf, pairs = 1.5), "pairs")
  expect_error(h_statistic(NULL, X, predict_function = pf, N = 1), "N")
  expect_error(h_statistic(NULL, X, predict_function = pf, memory_budget = 0), "memory_budget")
  expect_error(h_statistic(NULL, X, predict_function = pf, weights = 1:3), "weights")
  expect_error(h_statistic(NULL, X, predict_function = pf, threads = 0), "threads")
  expect_error(h_statistic(NULL, X, predict_function = pf, class = "x"), "class")
  expect_error(h_statistic(NULL, X, predict_function = pf, label = 1), "label")
  expect_error(h_statistic(NULL, X, predict_function = function(m, newdata) "a"), "not probabilities")
})

test_that("plots: bars of H2, sorted, one panel per kind, coloured by class", {
  X <- h_fixture(60)
  fit <- lm(y ~ a * b + a:c + d * e, data = X)
  res <- h_statistic(fit, X[c("a", "b", "c", "d", "e")], pairs = 3)
  p <- plot(res)
  expect_s3_class(p, "ggplot")
  d <- ggplot2::layer_data(p, 1)
  expect_equal(nrow(d), nrow(res$overall) + nrow(res$pairwise))
  expect_equal(sort(d$xmax), sort(c(res$overall$h2, res$pairwise$h2)), tolerance = 1e-12)
  expect_equal(sort(unique(as.integer(d$PANEL))), 1:2)
  # Largest on top: within a panel, y increases as H2 decreases.
  ov <- d[d$PANEL == 1, ]
  expect_equal(ov$xmax[order(-ov$y)], res$overall$h2, tolerance = 1e-12)
  po <- ggplot2::autoplot(res, geom = "overall", top = 2)
  d <- ggplot2::layer_data(po, 1)
  expect_equal(sort(d$xmax, decreasing = TRUE), res$overall$h2[1:2], tolerance = 1e-12)
  expect_equal(length(unique(d$PANEL)), 1)
  pp <- ggplot2::autoplot(res, geom = "pairwise")
  expect_equal(sort(ggplot2::layer_data(pp, 1)$xmax), sort(res$pairwise$h2), tolerance = 1e-12)
  r0 <- h_statistic(fit, X[c("a", "b", "c", "d", "e")], pairs = 0)
  expect_error(ggplot2::autoplot(r0, geom = "pairwise"), "no pairwise")
  expect_equal(nrow(ggplot2::layer_data(plot(r0), 1)), 5)
})

test_that("plots of a multiclass model: dodged bars coloured by class", {
  skip_if_not_installed("nnet")
  mn <- nnet::multinom(Species ~ ., data = iris, trace = FALSE)
  res <- h_statistic(mn, iris[1:4], N = 40, seed = 1, pairs = 2)
  expect_equal(res$labels, paste0("multinom.", levels(iris$Species)))
  p <- plot(res)
  d <- ggplot2::layer_data(p, 1)
  expect_equal(length(unique(d$fill)), 3)
  expect_equal(sort(d$xmax), sort(c(res$overall$h2, res$pairwise$h2)), tolerance = 1e-12)
  expect_equal(levels(p$data$label), res$labels)
})

test_that("summary() prints each H^2 with its percentile band of the replicates", {
  set.seed(3)
  d <- data.frame(x1 = runif(120), x2 = runif(120), x3 = runif(120))
  f <- function(m, newdata) newdata$x1 * newdata$x2 + newdata$x3
  h <- h_statistic(NULL, d, f, N = NULL, bands = profile_bands("bootstrap", B = 30), seed = 1)
  old <- options(width = 400)
  on.exit(options(old))
  out <- capture.output(print(summary(h)))
  expect_match(out[1], "95% bootstrap percentile bands")
  R <- h$replicates$overall
  for (i in seq_len(nrow(h$overall))) {
    lim <- quantile(R[i, ], c(0.025, 0.975), type = 7, names = FALSE)
    expect_equal(h$overall$h2_lower[i], lim[1])
    line <- out[grepl(paste0("^\\s*", h$overall$variable[i], " "), out)][1]
    nums <- as.numeric(regmatches(line, gregexpr("-?[0-9]+\\.?[0-9]*(e-?[0-9]+)?", line))[[1]])
    expect_true(any(abs(nums - signif(lim[1], 4)) <= 1e-12), info = i)
    expect_true(any(abs(nums - signif(lim[2], 4)) <= 1e-12), info = i)
  }
})
