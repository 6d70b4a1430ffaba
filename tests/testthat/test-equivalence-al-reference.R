# AL of categorical variables and second-order AL against the plain-R
# references of helper-reference-al.R (written from ALEPlot's algorithm,
# with case weights), and against iml where installed.

al_case <- function(seed, levels = 5, n = 240) {
  set.seed(seed)
  lev <- letters[seq_len(levels)]
  shift <- stats::setNames(sample(seq_len(levels)), lev)
  g <- factor(sample(lev, n, TRUE), levels = lev)
  X <- data.frame(
    x1 = rnorm(n) + shift[as.character(g)],
    g = g,
    h = factor(ifelse(runif(n) < shift[as.character(g)] / (levels + 1), "u", "v")),
    x2 = runif(n),
    k = sample(c("s", "t", "r"), n, TRUE),
    stringsAsFactors = FALSE
  )
  eff <- stats::setNames(rnorm(levels), lev)
  pred <- function(d) {
    e <- eff[as.character(d$g)]
    # (k, a character column, is left out of the data given to iml; x1 and
    # x2 interact, so that their second-order effect is not zero)
    d$x1 * e + (d$h == "u") * d$x2 + e * d$x2^2 + d$x1 * d$x2 + sin(2 * d$x1 * d$x2) +
      if (is.null(d$k)) 0 else (d$k == "s") * d$x1
  }
  list(X = X, pred = pred, w = sample(1:4, n, TRUE))
}

test_that("categorical AL equals the reference: order, values, weights", {
  for (seed in 1:6) {
    cs <- al_case(seed, levels = 3 + seed %% 4)
    pf <- function(m, d) cs$pred(d)
    for (w in list(NULL, cs$w)) {
      ref <- ref_al_factor(cs$X, "g", cs$pred, w = w)
      res <- model_profile(NULL, cs$X, predict_function = pf, variables = "g",
                           type = "accumulated", N = NULL, weights = w)
      expect_identical(res$grids$g, ref$levels, label = paste("order, seed", seed))
      expect_equal(res$agr_profiles$`_yhat_` - res$mean_prediction, ref$f, tolerance = 1e-12,
                   label = paste("values, seed", seed))
    }
    # The factor's own order.
    ref <- ref_al_factor(cs$X, "g", cs$pred, order = levels(cs$X$g))
    res <- model_profile(NULL, cs$X, predict_function = pf, variables = "g",
                         type = "accumulated", N = NULL, grid = profile_grids(level_order = "levels"))
    expect_identical(res$grids$g, levels(cs$X$g))
    expect_equal(res$agr_profiles$`_yhat_` - res$mean_prediction, ref$f, tolerance = 1e-12)
  }
  # Ordered factors keep their order; character columns are ordered by similarity.
  cs <- al_case(11)
  Xo <- cs$X
  Xo$g <- factor(Xo$g, levels = c("c", "a", "e", "b", "d"), ordered = TRUE)
  res <- model_profile(NULL, Xo, predict_function = function(m, d) cs$pred(d), variables = "g",
                       type = "accumulated", N = NULL)
  expect_identical(res$grids$g, c("c", "a", "e", "b", "d"))
  ref <- ref_al_factor(transform(Xo, g = factor(g, ordered = FALSE, levels = levels(g))), "g", cs$pred,
                       order = c("c", "a", "e", "b", "d"))
  expect_equal(res$agr_profiles$`_yhat_` - res$mean_prediction, ref$f, tolerance = 1e-12)
  Xc <- cs$X
  Xc$g <- as.character(Xc$g)
  res <- model_profile(NULL, Xc, predict_function = function(m, d) cs$pred(d), variables = "g",
                       type = "accumulated", N = NULL)
  ref <- ref_al_factor(cs$X, "g", cs$pred)
  expect_identical(res$grids$g, ref$levels)
  expect_equal(res$agr_profiles$`_yhat_` - res$mean_prediction, ref$f, tolerance = 1e-12)
})

test_that("second-order AL equals the reference, with weights and empty cells", {
  checked <- 0
  numeric_pairs <- 0
  for (seed in 1:6) {
    cs <- al_case(seed, n = 200)
    pf <- function(m, d) cs$pred(d)
    for (J in list(c("x1", "x2"), c("g", "x1"), c("g", "x2"))) {
      for (w in list(NULL, cs$w)) {
        K <- 4 + seed
        ref <- ref_al_2d(cs$X, J, cs$pred, K, w = w)
        if (ref$nn_ties > 0) next # ALEPlot's (ANN's) choice among tied cells is not defined
        res <- model_profile_2d(NULL, cs$X, predict_function = pf,
                                variables = J, type = "accumulated", grid = profile_grids(intervals = K), N = NULL,
                                weights = w)
        a <- res$agr_profiles
        expect_identical(res$grids[[J[1]]], if (is.character(ref$x1)) ref$x1 else unname(ref$x1))
        expect_identical(res$grids[[J[2]]], unname(ref$x2))
        expect_equal(matrix(a$`_yhat_`, length(ref$x1)), unname(ref$f), tolerance = 1e-12,
                     label = paste("seed", seed, paste(J, collapse = ":")))
        # Every pair interacts: the surfaces are far from zero (x1:x2 spans
        # 4.8 to 7.0, g:x1 5.9 to 16.2, g:x2 0.9 to 2.5).
        expect_gt(diff(range(ref$f)), 0.5)
        checked <- checked + 1
        numeric_pairs <- numeric_pairs + identical(J, c("x1", "x2"))
      }
    }
  }
  expect_gt(checked, 25)
  expect_gt(numeric_pairs, 8)
})

test_that("categorical AL equals iml's; 2-D AL equals iml's on ALEPlot's edges", {
  skip_if_not_installed("iml")
  cs <- al_case(5)
  X <- cs$X[c("x1", "g", "h", "x2")]
  P <- iml::Predictor$new(model = NULL, data = X,
                          predict.function = function(model, newdata) cs$pred(newdata))
  fe <- iml::FeatureEffect$new(P, "g", method = "ale")$results
  res <- model_profile(NULL, X, predict_function = function(m, d) cs$pred(d), variables = "g",
                       type = "accumulated", N = NULL)
  expect_identical(res$grids$g, as.character(fe$g))
  expect_equal(res$agr_profiles$`_yhat_` - res$mean_prediction, fe$.value, tolerance = 1e-12)
  # iml's own 2-D grid uses other quantile probabilities; on ALEPlot's edges
  # the estimates agree. (iml fills empty cells with yaImpute.)
  skip_if_not_installed("yaImpute")
  r2 <- model_profile_2d(NULL, X, predict_function = function(m, d) cs$pred(d), variables = c("x1", "x2"),
                         type = "accumulated", grid = profile_grids(intervals = 6), N = NULL)
  z1 <- r2$grids$x1
  z2 <- r2$grids$x2
  # (iml passes data.table's merge() an argument it ignores, with a warning.)
  fe2 <- withCallingHandlers(
    iml::FeatureEffect$new(P, c("x1", "x2"), method = "ale", grid.points = list(z1, z2))$results,
    warning = function(w) if (grepl("unknown keyword argument", conditionMessage(w))) invokeRestart("muffleWarning")
  )
  f <- matrix(NA_real_, length(z1), length(z2))
  f[cbind(match(fe2$x1, z1), match(fe2$x2, z2))] <- fe2$.ale
  expect_equal(matrix(r2$agr_profiles$`_yhat_`, length(z1)), f, tolerance = 1e-12)
  expect_gt(diff(range(f)), 2)
})
