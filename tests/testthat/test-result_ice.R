# ICE curves kept compactly (R/result_ice.R): DALEX's long cp_profiles made
# only when asked for, equal to the curves the predict() path gives.

ice_data <- function(n = 300) {
  set.seed(11)
  X <- data.frame(a = rnorm(n), b = runif(n), f = factor(sample(c("u", "v", "w"), n, TRUE)))
  X$y <- X$a * X$b + (X$f == "v") + rnorm(n)
  X
}

test_that("the long frame is made when asked for, once, and equals the predict() path's", {
  D <- ice_data()
  fit <- lm(y ~ a * b + f, data = D)
  X <- D[c("a", "b", "f")]
  lin <- model_profile(fit, X, N = NULL, grid_points = 7)
  ref <- model_profile(fit, X, N = NULL, grid_points = 7, engine = "predict")
  ice <- .subset2(lin, "cp_profiles")
  expect_s3_class(ice, "mp_ice")
  expect_null(ice$cache$long)
  # print() counts the points without making the frame.
  expect_output(print(lin), "ICE curves: 5,100 rows in \\$cp_profiles")
  expect_null(ice$cache$long)
  cp <- lin$cp_profiles
  expect_identical(names(cp), c("_vname_", "_label_", "_ids_", "_x_", "_yhat_"))
  expect_identical(cp[c("_vname_", "_label_", "_ids_", "_x_")], ref$cp_profiles[c("_vname_", "_label_", "_ids_", "_x_")])
  expect_equal(cp$`_yhat_`, ref$cp_profiles$`_yhat_`, tolerance = 1e-13)
  # An independent computation: the model's predict() at each curve point.
  for (v in c("a", "b")) {
    d <- cp[cp$`_vname_` == v, ]
    nd <- X[d$`_ids_`, ]
    nd[[v]] <- as.numeric(d$`_x_`)
    expect_equal(d$`_yhat_`, unname(predict(fit, nd)), tolerance = 1e-13)
  }
  # Made once: `[[`, `$` and as.data.frame() give the same object.
  expect_identical(lin[["cp_profiles"]], cp)
  expect_identical(as.data.frame(lin, what = "cp_profiles"), cp)
  expect_false(is.null(ice$cache$long))
  # The profiles are the means of the curves.
  pd <- tapply(cp$`_yhat_`, paste(cp$`_vname_`, cp$`_x_`), mean)
  agr <- lin$agr_profiles
  expect_equal(as.vector(pd[paste(agr$`_vname_`, agr$`_x_`)]), agr$`_yhat_`, tolerance = 1e-13)
})

test_that("a binomial glm's compact curves give each class's probabilities", {
  D <- ice_data()
  D$z <- as.integer(D$y > 0.3)
  fit <- glm(z ~ a * b, data = D, family = binomial)
  X <- D[c("a", "b")]
  for (cl in c("0", "1")) {
    lin <- model_profile(fit, X, N = NULL, grid_points = 5, class = cl)
    expect_s3_class(.subset2(lin, "cp_profiles"), "mp_ice")
    cp <- lin$cp_profiles
    nd <- X[cp$`_ids_`, ]
    nd$a[cp$`_vname_` == "a"] <- cp$`_x_`[cp$`_vname_` == "a"]
    nd$b[cp$`_vname_` == "b"] <- cp$`_x_`[cp$`_vname_` == "b"]
    p1 <- unname(predict(fit, nd, type = "response"))
    expect_equal(cp$`_yhat_`, if (cl == "1") p1 else 1 - p1, tolerance = 1e-13)
  }
})

test_that("subgroups and weights keep one block per part, in the predict() path's order", {
  D <- ice_data()
  fit <- lm(y ~ a * b + f, data = D)
  X <- D[c("a", "b", "f")]
  w <- rep(1:3, length.out = nrow(X))
  lin <- model_profile(fit, X, variables = c("a", "b"), N = NULL, grid_points = 5, groups = "f", weights = w)
  ref <- model_profile(fit, X, variables = c("a", "b"), N = NULL, grid_points = 5, groups = "f", weights = w,
                       engine = "predict")
  expect_length(.subset2(lin, "cp_profiles")$blocks, 6L)
  expect_identical(lin$cp_profiles[1:4], ref$cp_profiles[1:4])
  expect_equal(lin$cp_profiles$`_yhat_`, ref$cp_profiles$`_yhat_`, tolerance = 1e-13)
  expect_equal(lin$agr_profiles, ref$agr_profiles, tolerance = 1e-13)
})

test_that("a black box keeps its curves as arrays, and a replaced frame is used as given", {
  D <- ice_data(120)
  X <- D[c("a", "b")]
  pf <- function(m, nd) sin(nd$a) * nd$b
  res <- model_profile(NULL, X, pf, N = NULL, grid_points = 4)
  ice <- .subset2(res, "cp_profiles")
  expect_true(is.array(ice$blocks[[1]]$values))
  cp <- res$cp_profiles
  expect_equal(cp$`_yhat_`, pf(NULL, transform(X[cp$`_ids_`, ],
                                               a = ifelse(cp$`_vname_` == "a", cp$`_x_`, a),
                                               b = ifelse(cp$`_vname_` == "b", cp$`_x_`, b))))
  # A user's frame in its place is what $cp_profiles and the plots read.
  res$cp_profiles <- cp[cp$`_vname_` == "a", ]
  expect_identical(res$cp_profiles, cp[cp$`_vname_` == "a", ])
  expect_s3_class(plot(res, geom = "profiles", variables = "a"), "ggplot")
})

test_that("ICE clusters label the compact curves by cluster", {
  D <- ice_data(150)
  fit <- lm(y ~ a * b, data = D)
  res <- model_profile(fit, D[c("a", "b")], N = NULL, grid_points = 5, k = 2)
  ice <- .subset2(res, "cp_profiles")
  expect_s3_class(ice, "mp_ice")
  cp <- res$cp_profiles
  cl <- res$clusters$cluster[match(cp$`_ids_`, res$clusters$row)]
  expect_identical(cp$`_label_`, paste0("lm_", cl))
  expect_setequal(unique(cp$`_label_`), res$labels)
})
