# find_regions(): splits of the background rows that make the centred ICE
# curves of a variable alike, held to brute-force computations.

regions_data <- function(n = 1500, seed = 1) {
  set.seed(seed)
  d <- data.frame(x1 = runif(n, -1, 1), x2 = runif(n, -1, 1), x3 = runif(n),
                  g = factor(sample(c("a", "b", "c"), n, TRUE)))
  d$y <- d$x1 * sign(d$x2) + d$x3
  d
}

# Slope of each region's PD over its grid.
region_slopes <- function(r, v) {
  d <- r$agr_profiles[r$agr_profiles$`_vname_` == v, ]
  vapply(split(d, d$`_label_`), function(p) unname(coef(lm(p$`_yhat_` ~ p$`_x_`))[2]), numeric(1))
}

test_that("y = x1 sign(x2) + x3: x1 is split on x2 at 0, with slopes +1 and -1; x3 is not split", {
  d <- regions_data()
  X <- d[c("x1", "x2", "x3", "g")]
  fit <- lm(y ~ x1:sign(x2) + x3, data = d)
  r <- find_regions(fit, X, variables = c("x1", "x3"), N = NULL, grid_points = 21)
  sp <- r$splits[r$splits$variable == "x1", ]
  expect_identical(nrow(sp), 1L)
  expect_identical(sp$split_variable, "x2")
  cut <- as.numeric(sub(".*<= ", "", sp$rule))
  expect_lt(abs(cut), 0.1)
  expect_equal(sp$explained, 1, tolerance = 1e-8)
  s <- region_slopes(r, "x1")
  expect_equal(sort(unname(s)), c(-1, 1), tolerance = 0.05)
  # The regions' rows are the rows on each side of the cut.
  reg <- r$regions[r$regions$variable == "x1", ]
  expect_identical(sort(reg$n), sort(c(sum(d$x2 <= cut), sum(d$x2 > cut))))
  expect_identical(r$summary$regions[r$summary$variable == "x3"], 1L)
  # The curves' heterogeneity by hand: centred curves around their mean.
  pd <- model_profile(fit, X, variables = "x1", N = NULL, grid_points = 21)
  ice <- as.data.frame(pd$cp_profiles)
  Y <- matrix(ice$`_yhat_`[order(ice$`_ids_`, ice$`_x_`)], 21)
  C <- Y - rep(colMeans(Y), each = 21)
  expect_equal(r$summary$heterogeneity[1], sum((C - rowMeans(C))^2), tolerance = 1e-10)
  # No prediction beyond the ICE curves'.
  expect_identical(r$n_predictions, pd$n_predictions + model_profile(fit, X, variables = "x3", N = NULL,
                                                                       grid_points = 21)$n_predictions)
})

test_that("a forest of the same function is split on x2 near 0", {
  skip_if_not_installed("ranger")
  d <- regions_data(2000, seed = 2)
  X <- d[c("x1", "x2", "x3")]
  fit <- ranger::ranger(x = X, y = d$y, num.trees = 100, seed = 1, num.threads = 1)
  r <- find_regions(fit, X, variables = "x1", depth = 1, grid_points = 21)
  expect_identical(r$splits$split_variable, "x2")
  expect_lt(abs(as.numeric(sub(".*<= ", "", r$splits$rule))), 0.1)
  s <- sort(unname(region_slopes(r, "x1")))
  expect_lt(s[1], -0.7)
  expect_gt(s[2], 0.7)
  expect_identical(r$engine, "native")
})

test_that("an additive model has no split worth reporting", {
  d <- regions_data()
  X <- d[c("x1", "x2", "x3", "g")]
  fit <- lm(y ~ x1 + x2 + x3 + g, data = d)
  r <- find_regions(fit, X, N = NULL, grid_points = 11)
  expect_identical(r$summary$regions, rep(1L, 4))
  expect_null(r$splits)
  expect_output(print(r), "no split worth reporting")
})

test_that("a categorical split groups the levels whose curves are alike", {
  d <- regions_data()
  d$y2 <- 2 * d$x1 * (d$g == "b") + d$x3
  fit <- lm(y2 ~ x1:I(g == "b") + x3, data = d)
  r <- find_regions(fit, d[c("x1", "x2", "x3", "g")], variables = "x1", N = NULL, grid_points = 11)
  expect_identical(r$splits$split_variable[1], "g")
  expect_true(r$splits$rule[1] %in% c("g in {a, c}", "g in {c, a}", "g in {b}"))
  s <- region_slopes(r, "x1")
  expect_equal(sort(unname(s)), c(0, 2), tolerance = 1e-8)
  expect_s3_class(plot(r), "ggplot")
})

test_that("the best split equals a brute-force search", {
  set.seed(5)
  G <- 7
  n <- 60
  C <- matrix(rnorm(G * n), G)
  w <- runif(n)
  x <- round(runif(n), 1)
  het <- function(rows) {
    m <- as.vector(C[, rows, drop = FALSE] %*% w[rows]) / sum(w[rows])
    sum(w[rows] * colSums((C[, rows, drop = FALSE] - m)^2))
  }
  cuts <- sort(unique(x))
  scores <- vapply(cuts[-length(cuts)], function(t) {
    l <- which(x <= t)
    r <- which(x > t)
    if (sum(w[l]) < 3 || sum(w[r]) < 3) Inf else het(l) + het(r)
  }, numeric(1))
  ord <- order(x)
  res <- best_split(C, w, ord, x, 3)
  expect_equal(res$within, min(scores), tolerance = 1e-10)
  expect_equal(res$total, het(seq_len(n)), tolerance = 1e-10)
  expect_identical(max(x[ord[seq_len(res$k)]]), cuts[which.min(scores)])
})

test_that("bad arguments are clear errors", {
  d <- regions_data(200)
  fit <- lm(y ~ x1 + x2, data = d)
  expect_error(find_regions(fit, d[c("x1", "x2")], min_explained = 2), "min_explained")
  expect_error(find_regions(fit, d[c("x1", "x2")], depth = 0), "depth")
  expect_error(find_regions(fit, d[c("x1", "x2")], split_variables = "nope"), "not in the data")
  fit3 <- nnet::multinom(g ~ x1 + x2, data = d, trace = FALSE)
  expect_error(find_regions(fit3, d[c("x1", "x2")]), "class")
})

test_that("find_regions() starts as every entry point does (start_call()): seed restored, shared level check", {
  d <- regions_data(300)
  X <- d[c("x1", "x2", "x3")]
  fit <- lm(y ~ x1:sign(x2) + x3, data = d)
  set.seed(3)
  before <- .Random.seed
  a <- find_regions(fit, X, variables = "x1", N = 100, grid_points = 5, seed = 7)
  # The caller's stream is as it was, and the seed gives the same rows.
  expect_identical(.Random.seed, before)
  b <- find_regions(fit, X, variables = "x1", N = 100, grid_points = 5, seed = 7)
  expect_identical(a$agr_profiles, b$agr_profiles)
  expect_identical(.Random.seed, before)
  # A failure after the seed was set leaves the stream as it was too.
  expect_error(find_regions(fit, X, variables = "nope", seed = 7), "nope")
  expect_identical(.Random.seed, before)
  # The level is checked as every band setting's level is.
  expect_error(find_regions(fit, X, level = 1), "between 0 and 1")
  expect_error(find_regions(fit, X, level = "a"), "level")
  expect_error(find_regions(fit, X, grid_pionts = 5), "grid_pionts")
  expect_error(find_regions(fit, X, engine = "bogus"), "engine")
  # The level sets the bands alone: half-widths qnorm((1 + level) / 2)
  # standard errors.
  r90 <- find_regions(fit, X, variables = "x1", N = 100, grid_points = 5, seed = 7, level = 0.9)
  expect_identical(r90$agr_profiles$`_yhat_`, a$agr_profiles$`_yhat_`)
  hw <- function(r) r$agr_profiles$`_upper_` - r$agr_profiles$`_yhat_`
  expect_gt(sum(hw(a)), 0)
  expect_equal(hw(r90), hw(a) * stats::qnorm(0.95) / stats::qnorm(0.975), tolerance = 1e-12)
  expect_equal(a$agr_profiles$`_yhat_` - a$agr_profiles$`_lower_`, hw(a), tolerance = 1e-12)
})
