# Second-order AL profiles: ALEPlot 1.1 (pinned literals), a closed form, the
# swap of a numeric x categorical pair, weights and classes.

ale2d_case <- function(case) {
  env <- new.env(parent = globalenv())
  eval(parse(text = aleplot_setup[[sub("2d_J.*", "", case)]]), envir = env)
  pf <- env$pred.fun
  list(X = env$X, model = env$X.model, pf = function(m, newdata) pf(m, newdata))
}

surface <- function(res, label = res$labels[1]) {
  a <- res$agr_profiles
  a <- a[a$`_label_` == label, ]
  matrix(a$`_yhat_`, length(unique(a$`_x_`)))
}

test_that("second-order AL equals ALEPlot 1.1, with and without empty cells", {
  cases <- grep("2d_J", names(aleplot_ref), value = TRUE)
  expect_length(cases, 8)
  # All pairs but one interact in their models: surfaces spanning 0.74 to 35.
  # synthetic's x1 and x3 enter additively, and ALEPlot's surface is zero.
  spans <- vapply(cases, function(case) diff(range(aleplot_ref[[case]]$f)), numeric(1))
  expect_identical(names(spans)[spans < 0.5], "synthetic2d_J13_K8")
  expect_lt(spans[["synthetic2d_J13_K8"]], 1e-12)
  for (case in cases) {
    ref <- aleplot_ref[[case]]
    d <- ale2d_case(case)
    v <- names(d$X)[ref$J]
    res <- model_profile_2d(d$model, d$X, predict_function = d$pf, variables = v,
                            type = "accumulated", grid = profile_grids(intervals = ref$K), N = NULL)
    x1 <- if (is.character(ref$x1)) ref$x1 else unname(ref$x1)
    expect_identical(res$grids[[v[1]]], x1, label = paste(case, "axis 1"))
    expect_identical(res$grids[[v[2]]], unname(ref$x2), label = paste(case, "axis 2"))
    expect_equal(surface(res), unname(ref$f), tolerance = 1e-12, label = paste(case, "values"))
  }
  # The sparse cases do have empty cells to fill.
  d <- ale2d_case("sparse2d_J12_K10")
  e1 <- aleplot_ref$sparse2d_J12_K10$x1
  e2 <- aleplot_ref$sparse2d_J12_K10$x2
  counts <- table(cut(d$X$x1, e1, include.lowest = TRUE), cut(d$X$x2, e2, include.lowest = TRUE))
  expect_gt(sum(counts == 0), 10)
})

test_that("an additive model has no second-order effect; a product has a known one", {
  set.seed(31)
  X <- data.frame(a = runif(400), b = runif(400), g = factor(sample(c("u", "v", "w"), 400, TRUE)))
  add <- function(m, d) sin(3 * d$a) + d$b^2 + as.integer(d$g) * 2
  r <- model_profile_2d(NULL, X, predict_function = add, variables = list(c("a", "b"), c("g", "b")),
                        type = "accumulated", grid = profile_grids(intervals = 8))
  expect_equal(as.data.frame(r)$`_yhat_`, rep(0, nrow(as.data.frame(r))), tolerance = 1e-12)
  # f = a * b: every cell's second difference is the cell's area, so the
  # accumulated effect at the edges is a * b less the first-order parts and
  # the constant, i.e. (a - c1)(b - c2) - c3 for constants fixed by the
  # centring; its mixed second differences are those of a * b.
  prod <- function(m, d) d$a * d$b
  r <- model_profile_2d(NULL, X, predict_function = prod, variables = c("a", "b"),
                        type = "accumulated", grid = profile_grids(intervals = 8))
  f <- surface(r)
  e1 <- r$grids$a
  e2 <- r$grids$b
  expect_equal(diff(t(diff(f))), diff(t(diff(outer(e1, e2)))), tolerance = 1e-12)
})

test_that("a numeric x categorical pair is the transpose of categorical x numeric", {
  d <- ale2d_case("factor52d_J24_K6")
  ab <- model_profile_2d(NULL, d$X, predict_function = d$pf, variables = c("g", "x2"),
                         type = "accumulated", grid = profile_grids(intervals = 6), N = NULL)
  ba <- model_profile_2d(NULL, d$X, predict_function = d$pf, variables = c("x2", "g"),
                         type = "accumulated", grid = profile_grids(intervals = 6), N = NULL)
  expect_equal(surface(ba), t(surface(ab)))
  expect_identical(ba$grids, ab$grids[c("x2", "g")])
  expect_equal(unique(as.data.frame(ba)$`_x2_`), aleplot_ref$factor52d_J24_K6$x1)
  expect_error(model_profile_2d(NULL, d$X, predict_function = d$pf, variables = c("g", "h"),
                                type = "accumulated"), "both categorical")
})

test_that("second-order AL: weights equal duplicated rows; classes; missing values", {
  d <- ale2d_case("factor52d_J24_K6")
  set.seed(3)
  w <- sample(1:3, nrow(d$X), TRUE)
  dup <- d$X[rep(seq_len(nrow(d$X)), w), ]
  # factor5's model is additive in x1 and x2; x1 * x2 and sin(x1 * x2) make
  # their second-order effect non-zero.
  pfi <- function(m, nd) d$pf(m, nd) + nd$x1 * nd$x2 + sin(nd$x1 * nd$x2)
  for (v in list(c("x1", "x2"), c("g", "x1"))) {
    wt <- model_profile_2d(NULL, d$X, predict_function = pfi, variables = v, type = "accumulated",
                           grid = profile_grids(intervals = 6), N = NULL, weights = w)
    dp <- model_profile_2d(NULL, dup, predict_function = pfi, variables = v, type = "accumulated",
                           grid = profile_grids(intervals = 6), N = NULL)
    expect_equal(wt$grids, dp$grids)
    expect_equal(surface(wt), surface(dp), tolerance = 1e-12)
    # Both are the plain-R reference of ALEPlot's algorithm, with the weights
    # as frequencies and on the duplicated rows.
    for (ref in list(ref_al_2d(d$X, v, function(nd) pfi(NULL, nd), K = 6, w = w),
                     ref_al_2d(dup, v, function(nd) pfi(NULL, nd), K = 6))) {
      expect_identical(ref$nn_ties, 0L)
      expect_equal(wt$grids[[v[2]]], unname(ref$x2))
      expect_equal(surface(wt), unname(ref$f), tolerance = 1e-12, label = paste(v, collapse = ":"))
    }
    expect_gt(diff(range(surface(wt))), 2)
  }
  # three: x1 * x2, whose effect is zero for g:x2 and not for x1:x2.
  pf2 <- function(m, nd) cbind(one = d$pf(m, nd), two = -2 * d$pf(m, nd), three = nd$x1 * nd$x2)
  r <- model_profile_2d(NULL, d$X, predict_function = pf2, variables = c("g", "x2"),
                        type = "accumulated", grid = profile_grids(intervals = 6), N = NULL, label = "m")
  expect_equal(r$labels, c("m.one", "m.two", "m.three"))
  expect_equal(surface(r, "m.two"), -2 * surface(r, "m.one"), tolerance = 1e-12)
  expect_equal(surface(r, "m.three"), 0 * surface(r, "m.one"), tolerance = 1e-12)
  p <- plot(r)
  expect_s3_class(p$facet, "FacetWrap")
  # Chunks of a few rows give the same numbers.
  small <- model_profile_2d(NULL, d$X, predict_function = pf2, variables = c("g", "x2"),
                            type = "accumulated", grid = profile_grids(intervals = 6), N = NULL, label = "m",
                            memory_budget = 0.005)
  expect_equal(small$agr_profiles, r$agr_profiles)
  small <- model_profile_2d(NULL, d$X, predict_function = pf2, variables = c("x1", "x2"),
                            type = "accumulated", grid = profile_grids(intervals = 6), N = NULL, label = "m",
                            memory_budget = 0.005)
  whole <- model_profile_2d(NULL, d$X, predict_function = pf2, variables = c("x1", "x2"),
                            type = "accumulated", grid = profile_grids(intervals = 6), N = NULL, label = "m")
  expect_equal(small$agr_profiles, whole$agr_profiles, tolerance = 1e-12)
  ref <- ref_al_2d(d$X, c("x1", "x2"), function(nd) nd$x1 * nd$x2, K = 6)
  expect_equal(surface(small, "m.three"), unname(ref$f), tolerance = 1e-12)
  expect_gt(diff(range(surface(small, "m.three"))), 2)
  Xna <- d$X
  Xna$x2[1:5] <- NA
  expect_warning(model_profile_2d(NULL, Xna, predict_function = d$pf, variables = c("x1", "x2"),
                                  type = "accumulated", grid = profile_grids(intervals = 6)), "5 background rows")
  expect_output(print(r), "second-order accumulated")
})
