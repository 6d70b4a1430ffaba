# Binary and multiclass classifiers: which class is profiled, labels, and
# profiles of every class from the same predictions.

iris_x <- function() iris[c("Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width")]

test_that("binomial glm: the second class by default, the first on request", {
  d <- mtcars
  d$am <- factor(d$am, labels = c("automatic", "manual"))
  fit <- glm(am ~ wt + hp, data = d, family = binomial)
  X <- d[c("wt", "hp")]
  p <- function(nd) predict(fit, nd, type = "response")
  res <- model_profile(fit, X, variables = "wt", grid_points = 5)
  expect_equal(res$agr_profiles$`_yhat_`, ref_pd(p, X, "wt", res$grids$wt), tolerance = 1e-12)
  expect_equal(res$class, "manual")
  expect_equal(unique(res$agr_profiles$`_label_`), "glm")
  first <- model_profile(fit, X, variables = "wt", grid_points = 5, class = "automatic")
  expect_equal(first$agr_profiles$`_yhat_`, 1 - res$agr_profiles$`_yhat_`, tolerance = 1e-12)
  expect_equal(first$class, "automatic")
  expect_equal(model_profile(fit, X, variables = "wt", grid_points = 5, class = 1)$agr_profiles,
               first$agr_profiles)
  expect_error(model_profile(fit, X, variables = "wt", class = "yes"),
               "not a class of the model")
  expect_error(model_profile(fit, X, variables = "wt", class = 3), "between 1 and 2")
  # A 0/1 response: classes "0" and "1".
  fit01 <- glm(am ~ wt, data = mtcars, family = binomial)
  expect_equal(model_profile(fit01, mtcars["wt"], grid_points = 3)$class, "1")
})

test_that("multiclass: one profile per class, labelled <label>.<class>, summing to one", {
  skip_if_not_installed("ranger")
  X <- iris_x()
  fit <- ranger::ranger(Species ~ ., data = iris, num.trees = 30, probability = TRUE,
                        num.threads = 1, seed = 1)
  p <- function(nd) predict(fit, nd, num.threads = 1)$predictions
  classes <- levels(iris$Species)
  res <- model_profile(fit, X, variables = c("Petal.Length", "Sepal.Width"), grid_points = 7)
  a <- res$agr_profiles
  expect_equal(res$labels, paste0("ranger.", classes))
  expect_equal(res$class, classes)
  expect_setequal(unique(a$`_label_`), res$labels)
  for (c in seq_along(classes)) {
    for (v in res$variables) {
      got <- a$`_yhat_`[a$`_label_` == res$labels[c] & a$`_vname_` == v]
      expect_equal(got, ref_pd(function(nd) p(nd)[, c], X, v, res$grids[[v]]), tolerance = 1e-12)
    }
  }
  # The class probabilities sum to one, and so do their PD profiles.
  sums <- as.vector(tapply(a$`_yhat_`, paste(a$`_vname_`, a$`_x_`), sum))
  expect_equal(unname(sums), rep(1, length(sums)), tolerance = 1e-12)
  # ICE curves of every class.
  cp <- res$cp_profiles
  expect_equal(nrow(cp), 3 * 150 * (7 + 7))
  ice <- cp$`_yhat_`[cp$`_label_` == "ranger.virginica" & cp$`_vname_` == "Petal.Length"]
  expect_equal(matrix(ice, 7), t(ref_ice(function(nd) p(nd)[, 3], X, "Petal.Length", res$grids$Petal.Length)),
               tolerance = 1e-12)

  # AL increments of the three classes cancel: centred, their sum is the
  # mean of the summed predictions, 1.
  al <- model_profile(fit, X, variables = "Petal.Length", type = "accumulated", grid = profile_grids(intervals = 10))
  s <- as.vector(tapply(al$agr_profiles$`_yhat_`, al$agr_profiles$`_x_`, sum))
  expect_equal(unname(s), rep(1, length(s)), tolerance = 1e-12)
  for (c in seq_along(classes)) {
    ref <- ref_al(function(nd) p(nd)[, c], X, "Petal.Length", 10)
    got <- al$agr_profiles$`_yhat_`[al$agr_profiles$`_label_` == al$labels[c]]
    expect_equal(got - al$mean_prediction[[c]], ref$f, tolerance = 1e-12)
  }
  expect_equal(unname(al$mean_prediction), unname(colMeans(p(X))), tolerance = 1e-12)

  # LD (kernel and interval), and a chosen pair of classes.
  ld <- model_profile(fit, X, variables = "Petal.Length", type = "conditional",
                      grid_points = 6, bandwidth = 0.5, class = c("virginica", "setosa"))
  expect_equal(ld$labels, c("ranger.virginica", "ranger.setosa"))
  got <- ld$agr_profiles$`_yhat_`[ld$agr_profiles$`_label_` == "ranger.setosa"]
  expect_equal(got, ref_ld_kernel(function(nd) p(nd)[, 1], X, "Petal.Length", ld$grids$Petal.Length, 0.5),
               tolerance = 1e-12)
  ldi <- model_profile(fit, X, variables = "Sepal.Width", type = "conditional", method = "interval",
                       grid = profile_grids(intervals = 5), grid_points = 6, class = 2)
  expect_equal(ldi$labels, "ranger.versicolor")
  expect_equal(ldi$agr_profiles$`_yhat_`,
               ref_ld_interval(function(nd) p(nd)[, 2], X, "Sepal.Width", ldi$grids$Sepal.Width, 5),
               tolerance = 1e-12)
})

test_that("multiclass randomForest, nnet::multinom and xgboost multi:softprob", {
  X <- iris_x()
  skip_if_not_installed("nnet")
  set.seed(1)
  mn <- nnet::multinom(Species ~ ., data = iris, trace = FALSE)
  res <- model_profile(mn, X, variables = "Sepal.Width", grid_points = 5)
  expect_equal(res$labels, paste0("multinom.", levels(iris$Species)))
  for (c in 1:3) {
    expect_equal(res$agr_profiles$`_yhat_`[res$agr_profiles$`_label_` == res$labels[c]],
                 ref_pd(function(nd) predict(mn, nd, type = "probs")[, c], X, "Sepal.Width", res$grids$Sepal.Width),
                 tolerance = 1e-12)
  }
  # Two classes: nnet returns one probability; both classes are known.
  d2 <- droplevels(iris[iris$Species != "setosa", ])
  mn2 <- nnet::multinom(Species ~ Sepal.Width + Petal.Length, data = d2, trace = FALSE)
  r2 <- model_profile(mn2, d2[c("Sepal.Width", "Petal.Length")], variables = "Petal.Length",
                      grid_points = 5, class = "versicolor")
  expect_equal(r2$agr_profiles$`_yhat_`,
               ref_pd(function(nd) 1 - predict(mn2, nd, type = "probs"), d2, "Petal.Length", r2$grids$Petal.Length),
               tolerance = 1e-12)
  expect_equal(r2$label, "multinom")

  skip_if_not_installed("randomForest")
  set.seed(2)
  rf <- randomForest::randomForest(Species ~ ., data = iris, ntree = 20)
  res <- model_profile(rf, X, variables = "Petal.Width", grid_points = 5, class = c("setosa", "virginica"),
                       label = "rf")
  expect_equal(res$labels, c("rf.setosa", "rf.virginica"))
  expect_equal(res$agr_profiles$`_yhat_`[res$agr_profiles$`_label_` == "rf.virginica"],
               ref_pd(function(nd) predict(rf, nd, type = "prob")[, 3], X, "Petal.Width", res$grids$Petal.Width))

  skip_if_not_installed("xgboost")
  m <- as.matrix(X)
  xg <- xgboost::xgboost(data = m, label = as.integer(iris$Species) - 1L, nrounds = 5, verbose = 0,
                         params = list(objective = "multi:softprob", num_class = 3, nthread = 1))
  res <- model_profile(xg, m, variables = "Petal.Length", grid_points = 5)
  # Labelled by xgboost's own class labels, 0..2.
  expect_equal(res$labels, paste0("xgb.Booster.", 0:2))
  ref <- ref_pd(function(nd) predict(xg, as.matrix(nd), reshape = TRUE)[, 2], X, "Petal.Length",
                res$grids$Petal.Length)
  expect_equal(res$agr_profiles$`_yhat_`[res$agr_profiles$`_label_` == "xgb.Booster.1"], ref,
               tolerance = 1e-6)
})

test_that("multiclass 2-D PD, subgroups, print and plot", {
  X <- iris_x()
  pf <- function(m, nd) {
    e <- cbind(a = nd$Sepal.Length, b = nd$Petal.Length, c = nd$Sepal.Length * nd$Petal.Width / 4)
    e <- exp(e - apply(e, 1, max))
    e / rowSums(e)
  }
  p2 <- model_profile_2d(NULL, X, predict_function = pf, variables = c("Sepal.Length", "Petal.Width"),
                         grid_points = 4, label = "soft")
  a <- p2$agr_profiles
  expect_equal(p2$labels, c("soft.a", "soft.b", "soft.c"))
  expect_equal(nrow(a), 3 * 16)
  sel <- a$`_label_` == "soft.c"
  ref <- mapply(function(z1, z2) {
    nd <- X
    nd$Sepal.Length <- z1
    nd$Petal.Width <- z2
    mean(pf(NULL, nd)[, 3])
  }, a$`_x_`[sel], a$`_x2_`[sel])
  expect_equal(a$`_yhat_`[sel], ref, tolerance = 1e-12)
  g <- model_profile(NULL, cbind(X, s = iris$Species), predict_function = pf, variables = "Petal.Length",
                     groups = "s", grid_points = 4, label = "soft")
  expect_equal(unique(g$agr_profiles$`_label_`)[1:3], paste0("soft.", c("a", "b", "c"), "_setosa"))
  expect_output(print(model_profile(NULL, X, predict_function = pf, variables = "Petal.Length",
                                    grid_points = 4, label = "soft")), "soft.b")
  p <- plot(model_profile(NULL, X, predict_function = pf, variables = "Petal.Length",
                          grid_points = 4, label = "soft"), geom = "aggregates")
  expect_equal(length(unique(ggplot2::layer_data(p, layer_at(p, column = "_label_"))$colour)), 3)
  expect_equal(p$labels$colour, "soft, class")
  # 3 subgroups x 3 classes: colour for the subgroup, line type for the class.
  pg <- plot(g)
  lg <- ggplot2::layer_data(pg, layer_at(pg, column = "_label_"))
  expect_equal(length(unique(lg$colour)), 3)
  expect_equal(length(unique(lg$linetype)), 3)
  expect_equal(length(unique(paste(lg$colour, lg$linetype))), 9)
})
