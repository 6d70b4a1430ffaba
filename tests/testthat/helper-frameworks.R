# Data and expectations of the tests of models inside frameworks
# (test-adapter_frameworks.R, test-adapter_frameworks_native.R).

frame_data <- function(n = 120, seed = 11) {
  set.seed(seed)
  d <- data.frame(a = rnorm(n), b = runif(n), c = rnorm(n))
  eta <- d$a * d$b + d$c
  d$y <- eta + rnorm(n, sd = 0.3)
  d$cls <- factor(ifelse(eta + rnorm(n, sd = 0.5) > 0, "yes", "no"), levels = c("no", "yes"))
  d$m3 <- cut(eta + rnorm(n, sd = 0.5), c(-Inf, -0.4, 0.4, Inf), labels = c("lo", "mid", "hi"))
  d
}

# The framework's own PD: every background row over the grid of v, stacked
# into one data frame and predicted by `own` (a matrix with a column per
# class, or a vector), averaged per grid point (a grid x classes matrix).
own_framework_pd <- function(own, X, v, grid) {
  stacked <- X[rep(seq_len(nrow(X)), times = length(grid)), , drop = FALSE]
  stacked[[v]] <- rep(grid, each = nrow(X))
  rownames(stacked) <- NULL
  p <- own(stacked)
  p <- if (is.null(dim(p))) matrix(p) else as.matrix(p)
  g <- rep(seq_along(grid), each = nrow(X))
  apply(p, 2L, function(col) as.vector(tapply(col, g, mean)))
}

# The native profile of a framework's model equals its own predict(),
# averaged by hand, for every class (classes: the framework's, in its
# order; NULL for a regression). Returns the profile.
expect_framework_native <- function(fit, X, own, classes = NULL, tol = 1e-12, v = "a") {
  pd <- model_profile(fit, X, variables = v, N = NULL, grid_points = 6, class = classes)
  expect_identical(pd$engine, "native")
  expect_identical(model_adapter(fit)$classes, classes)
  expect_identical(pd$class, classes)
  ref <- own_framework_pd(own, X, v, pd$grids[[v]])
  d <- pd$agr_profiles
  for (k in seq_len(ncol(ref))) {
    got <- d$`_yhat_`[d$`_label_` == pd$labels[k]]
    expect_equal(got, unname(ref[, k]), tolerance = tol, info = paste(class(fit)[1L], classes[k]))
  }
  # The predict path gives the same numbers.
  pp <- model_profile(fit, X, variables = v, N = NULL, grid_points = 6, class = classes, engine = "predict")
  expect_equal(pp$agr_profiles$`_yhat_`, d$`_yhat_`, tolerance = tol)
  invisible(pd)
}
