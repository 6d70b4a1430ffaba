# Model adapters: each family end to end against the model's own predict(),
# class names in the model's column order, refusals that say how to get
# probabilities, and the rule that a user's predict function is the model.

family_data <- function(n = 150, seed = 11) {
  set.seed(seed)
  X <- data.frame(a = rnorm(n), b = runif(n), c = rnorm(n))
  X$y <- X$a + 2 * X$b^2 + rnorm(n, sd = 0.2)
  X$cls <- factor(ifelse(X$a + X$c + rnorm(n) > 0, "up", "down"), levels = c("down", "up"))
  X$cls3 <- factor(cut(X$a + X$c, c(-Inf, -0.7, 0.7, Inf), labels = c("p", "q", "r")))
  X
}

# PD at the result's grid from `own(newdata)` for the profiled classes.
own_pd <- function(res, own, data, v) {
  grid <- res$grids[[v]]
  ref <- do.call(rbind, lapply(grid, function(z) {
    d <- data
    d[[v]] <- z
    p <- own(d)
    if (is.null(dim(p))) mean(p) else colMeans(as.matrix(p))
  }))
  ref
}

got_pd <- function(res, v) {
  d <- res$agr_profiles[res$agr_profiles$`_vname_` == v, ]
  matrix(d$`_yhat_`, ncol = length(res$labels))
}

test_that("mgcv gam and bam: smooth terms are not taken as linear", {
  skip_if_not_installed("mgcv")
  skip_if_not_installed("MASS")
  B <- MASS::Boston
  g <- mgcv::gam(medv ~ s(lstat) + rm, data = B)
  expect_false(model_adapter(g)$linear)
  pd <- model_profile(g, B[c("lstat", "rm")], variables = "lstat", N = NULL, grid_points = 11)
  expect_identical(pd$engine, "predict")
  ref <- own_pd(pd, function(d) predict(g, d), B, "lstat")
  expect_equal(got_pd(pd, "lstat")[, 1], ref[, 1], tolerance = 1e-10)
  # Brute force at the median lstat reads about 22, nowhere near -116.
  expect_true(all(ref > 5 & ref < 60))
  # A binomial gam: probabilities of the second class, on the response scale.
  B$hi <- B$medv > 25
  gb <- mgcv::gam(hi ~ s(lstat) + rm, data = B, family = binomial)
  expect_identical(model_adapter(gb)$classes, c("FALSE", "TRUE"))
  pdb <- model_profile(gb, B[c("lstat", "rm")], variables = "lstat", N = NULL, grid_points = 7)
  refb <- own_pd(pdb, function(d) predict(gb, d, type = "response"), B, "lstat")
  expect_equal(got_pd(pdb, "lstat")[, 1], refb[, 1], tolerance = 1e-10)
  # bam, through the same adapter.
  gm <- mgcv::bam(medv ~ s(lstat) + rm, data = B)
  pdm <- model_profile(gm, B[c("lstat", "rm")], variables = "lstat", N = NULL, grid_points = 5)
  refm <- own_pd(pdm, function(d) predict(gm, d), B, "lstat")
  expect_equal(got_pd(pdm, "lstat")[, 1], refm[, 1], tolerance = 1e-10)
})

test_that("predictions that are classes or class codes are a clear error", {
  d <- family_data()
  X <- d[c("a", "b", "c")]
  expect_error(model_profile(NULL, X, predict_function = function(m, nd) factor(nd$a > 0)),
               "classes.*not probabilities")
  expect_error(model_profile(NULL, X, predict_function = function(m, nd) nd$a > 0),
               "classes.*not probabilities")
  expect_error(model_profile(NULL, X, predict_function = function(m, nd) ifelse(nd$a > 0, "u", "d")),
               "classes.*not probabilities")
  skip_if_not_installed("ranger")
  rc <- ranger::ranger(cls ~ a + b + c, data = d, num.trees = 5, num.threads = 1)
  expect_error(model_profile(rc, X), "probability = TRUE")
  skip_if_not_installed("xgboost")
  M <- as.matrix(X)
  soft <- xgboost::xgb.train(params = list(objective = "multi:softmax", num_class = 3, nthread = 1),
                             data = xgboost::xgb.DMatrix(M, label = as.integer(d$cls3) - 1),
                             nrounds = 3, verbose = 0)
  expect_error(model_profile(soft, X), "class codes.*multi:softprob")
  hinge <- xgboost::xgb.train(params = list(objective = "binary:hinge", nthread = 1),
                              data = xgboost::xgb.DMatrix(M, label = as.integer(d$cls) - 1),
                              nrounds = 3, verbose = 0)
  expect_error(model_profile(hinge, X), "binary:logistic")
})

test_that("a user's predict function is the model: no engine stands in for it", {
  d <- family_data()
  X <- d[c("a", "b", "c")]
  fit <- lm(y ~ a + b + c, data = d)
  clip <- function(m, nd) pmin(predict(m, nd), 1)
  pd <- model_profile(fit, X, predict_function = clip, N = NULL, grid_points = 6)
  expect_identical(pd$engine, "predict")
  ref <- own_pd(pd, function(nd) clip(fit, nd), X, "a")
  expect_equal(got_pd(pd, "a")[, 1], ref[, 1], tolerance = 1e-12)
  expect_error(model_profile(fit, X, predict_function = clip, engine = "native"),
               "stands in for the model's own predict function only")
  # An infinite prediction is an error, not a profile.
  expect_error(model_profile(fit, X, predict_function = function(m, nd) ifelse(nd$a > 1, Inf, nd$b)),
               "infinite")
  skip_if_not_installed("ranger")
  rf <- ranger::ranger(y ~ a + b + c, data = d, num.trees = 20, num.threads = 1, seed = 1)
  half <- function(m, nd) round(predict(m, nd, num.threads = 1)$predictions, 1)
  pr <- model_profile(rf, X, predict_function = half, variables = "b", N = NULL, grid_points = 5)
  expect_identical(pr$engine, "predict")
  expect_equal(got_pd(pr, "b")[, 1], own_pd(pr, function(nd) half(rf, nd), X, "b")[, 1], tolerance = 1e-12)
})

test_that("a predict function of one argument (iml/hstats style) is accepted", {
  d <- family_data()
  X <- d[c("a", "b", "c")]
  fit <- lm(y ~ a + b + c, data = d)
  one <- function(newdata) predict(fit, newdata)
  a <- model_profile(fit, X, predict_function = one, variables = "a", grid_points = 4)
  b <- model_profile(fit, X, variables = "a", grid_points = 4, engine = "predict")
  expect_equal(a$agr_profiles, b$agr_profiles, tolerance = 1e-12)
  expect_error(model_profile(fit, X, predict_function = function() 1), "no arguments")
  expect_error(model_profile(fit, X, predict_function = 3), "must be a function")
})

test_that("glmnet passed directly: one penalty, a path refused, cv.glmnet at lambda.1se", {
  skip_if_not_installed("glmnet")
  d <- family_data()
  X <- as.matrix(d[c("a", "b", "c")])
  path <- glmnet::glmnet(X, d$y)
  expect_error(model_profile(path, d[c("a", "b", "c")]), "path of .* penalties")
  one <- glmnet::glmnet(X, d$y, lambda = 0.05)
  pd <- model_profile(one, d[c("a", "b", "c")], variables = "b", N = NULL, grid_points = 5)
  ref <- own_pd(pd, function(nd) predict(one, as.matrix(nd), s = 0.05), d[c("a", "b", "c")], "b")
  expect_equal(got_pd(pd, "b")[, 1], ref[, 1], tolerance = 1e-12)
  set.seed(1)
  cv <- glmnet::cv.glmnet(X, as.integer(d$cls) - 1L, family = "binomial", nfolds = 3)
  pc <- model_profile(cv, d[c("a", "b", "c")], variables = "a", N = NULL, grid_points = 5)
  expect_identical(pc$class, "1")
  ref <- own_pd(pc, function(nd) predict(cv, as.matrix(nd), s = "lambda.1se", type = "response"),
                d[c("a", "b", "c")], "a")
  expect_equal(got_pd(pc, "a")[, 1], ref[, 1], tolerance = 1e-12)
  # Columns are matched by name, whatever the data's order.
  pr <- model_profile(one, d[c("c", "b", "a")], variables = "b", N = NULL, grid_points = 5)
  expect_equal(got_pd(pr, "b"), got_pd(pd, "b"), tolerance = 1e-12)
})

test_that("e1071 svm: probabilities with probability = TRUE, refused without", {
  skip_if_not_installed("e1071")
  d <- family_data()
  X <- d[c("a", "b", "c")]
  set.seed(2)
  s <- e1071::svm(cls3 ~ a + b + c, data = d, probability = TRUE)
  expect_identical(model_adapter(s)$classes, c("p", "q", "r"))
  pd <- model_profile(s, X, variables = "a", N = NULL, grid_points = 4)
  ref <- own_pd(pd, function(nd) attr(predict(s, nd, probability = TRUE), "probabilities")[, c("p", "q", "r")], X, "a")
  expect_equal(got_pd(pd, "a"), unname(ref), tolerance = 1e-10)
  expect_identical(pd$class, c("p", "q", "r"))
  s0 <- e1071::svm(cls ~ a + b + c, data = d)
  expect_error(model_profile(s0, X), "probability = TRUE")
  r <- e1071::svm(y ~ a + b + c, data = d)
  pr <- model_profile(r, X, variables = "b", N = NULL, grid_points = 4)
  expect_equal(got_pd(pr, "b")[, 1], own_pd(pr, function(nd) predict(r, nd), X, "b")[, 1], tolerance = 1e-10)
})

test_that("nnet multinom: class probabilities named by the levels, two classes too", {
  skip_if_not_installed("nnet")
  d <- family_data()
  X <- d[c("a", "b", "c")]
  m <- nnet::multinom(cls3 ~ a + b + c, data = d, trace = FALSE)
  pd <- model_profile(m, X, variables = "c", N = NULL, grid_points = 4)
  expect_identical(pd$class, c("p", "q", "r"))
  ref <- own_pd(pd, function(nd) predict(m, nd, type = "probs"), X, "c")
  expect_equal(got_pd(pd, "c"), unname(ref), tolerance = 1e-10)
  m2 <- nnet::multinom(cls ~ a + b + c, data = d, trace = FALSE)
  p2 <- model_profile(m2, X, variables = "c", N = NULL, grid_points = 4)
  expect_identical(p2$class, "up")
  expect_equal(got_pd(p2, "c")[, 1], own_pd(p2, function(nd) predict(m2, nd, type = "probs"), X, "c")[, 1],
               tolerance = 1e-10)
})

test_that("caret train: probabilities of a classifier, predictions of a regression", {
  skip_if_not_installed("caret")
  skip_if_not_installed("rpart")
  d <- family_data()
  X <- d[c("a", "b", "c")]
  ctrl <- suppressWarnings(caret::trainControl(method = "none", classProbs = TRUE))
  tc <- suppressWarnings(caret::train(cls ~ a + b + c, data = d, method = "rpart", trControl = ctrl,
                     tuneGrid = data.frame(cp = 0.01)))
  expect_identical(model_adapter(tc)$classes, c("down", "up"))
  pd <- model_profile(tc, X, variables = "a", N = NULL, grid_points = 5)
  expect_identical(pd$class, "up")
  ref <- own_pd(pd, function(nd) predict(tc, nd, type = "prob")[, "up"], X, "a")
  expect_equal(got_pd(pd, "a")[, 1], ref[, 1], tolerance = 1e-12)
  tr <- suppressWarnings(caret::train(y ~ a + b + c, data = d, method = "lm", trControl = caret::trainControl(method = "none")))
  pr <- model_profile(tr, X, variables = "b", N = NULL, grid_points = 4)
  expect_equal(got_pd(pr, "b")[, 1], own_pd(pr, function(nd) predict(tr, nd), X, "b")[, 1], tolerance = 1e-12)
  # Labelled by the model inside and the framework.
  expect_identical(pd$label, "rpart (caret)")
  expect_identical(pr$label, "lm (caret)")
})

test_that("parsnip model_fit and workflows workflow: .pred_<class> columns become classes", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("workflows")
  d <- family_data()
  X <- d[c("a", "b", "c")]
  spec <- parsnip::set_engine(parsnip::logistic_reg(), "glm")
  mf <- parsnip::fit(spec, cls ~ a + b + c, data = d)
  expect_identical(model_adapter(mf)$classes, c("down", "up"))
  pd <- model_profile(mf, X, variables = "a", N = NULL, grid_points = 5)
  expect_identical(pd$class, "up")
  ref <- own_pd(pd, function(nd) predict(mf, nd, type = "prob")$.pred_up, X, "a")
  expect_equal(got_pd(pd, "a")[, 1], ref[, 1], tolerance = 1e-12)
  wf <- workflows::add_formula(workflows::add_model(workflows::workflow(), spec), cls ~ a + b + c)
  wf <- parsnip::fit(wf, data = d)
  pw <- model_profile(wf, X, variables = "a", N = NULL, grid_points = 5)
  expect_equal(pw$agr_profiles$`_yhat_`, pd$agr_profiles$`_yhat_`, tolerance = 1e-12)
  reg <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(), "lm"), y ~ a + b + c, data = d)
  pr <- model_profile(reg, X, variables = "b", N = NULL, grid_points = 4)
  expect_equal(got_pd(pr, "b")[, 1], own_pd(pr, function(nd) predict(reg, nd)$.pred, X, "b")[, 1],
               tolerance = 1e-12)
  # Labelled by the model inside and the framework, not "model_fit" or "_glm".
  expect_identical(pd$label, "glm (parsnip)")
  expect_identical(pw$label, "glm (workflow)")
  expect_identical(pr$label, "lm (parsnip)")
  expect_identical(model_adapter(mf)$family, "model_fit")
})

test_that("mlr3 learners: probabilities by class; the task's positive class by default", {
  skip_if_not_installed("mlr3")
  d <- family_data()
  X <- d[c("a", "b", "c")]
  task <- mlr3::as_task_classif(d[c("a", "b", "c", "cls")], target = "cls", positive = "up")
  lrn <- mlr3::lrn("classif.rpart", predict_type = "prob")
  lrn$train(task)
  pd <- model_profile(lrn, X, variables = "a", N = NULL, grid_points = 5)
  expect_identical(pd$class, "up")
  ref <- own_pd(pd, function(nd) lrn$predict_newdata(nd)$prob[, "up"], X, "a")
  expect_equal(got_pd(pd, "a")[, 1], ref[, 1], tolerance = 1e-12)
  lrc <- mlr3::lrn("classif.rpart")
  lrc$train(task)
  expect_error(model_profile(lrc, X), "predict_type")
  rt <- mlr3::as_task_regr(d[c("a", "b", "c", "y")], target = "y")
  lr <- mlr3::lrn("regr.rpart")
  lr$train(rt)
  pr <- model_profile(lr, X, variables = "b", N = NULL, grid_points = 4)
  expect_equal(got_pd(pr, "b")[, 1], own_pd(pr, function(nd) lr$predict_newdata(nd)$response, X, "b")[, 1],
               tolerance = 1e-12)
  # Labelled by the learner's id.
  expect_identical(pd$label, "classif.rpart")
  expect_identical(pr$label, "regr.rpart")
})

test_that("an explainer's label is kept, DALEX's default too (as DALEX's results have it)", {
  skip_if_not_installed("DALEX")
  m <- nnet::multinom(Species ~ ., data = iris, trace = FALSE)
  # (DALEX's residuals of a factor response warn.)
  ex <- suppressWarnings(DALEX::explain(m, data = iris[1:4], y = iris$Species, verbose = FALSE))
  expect_identical(ex$label, "nnet")
  pd <- model_profile(ex, variables = "Petal.Length", grid_points = 5)
  expect_identical(pd$label, "nnet")
  expect_identical(unique(pd$agr_profiles$`_label_`), paste0("nnet.", levels(iris$Species)))
  # A glm's explainer is labelled "lm" by DALEX: so is the profile, and the
  # two results of one model in a chart have one name.
  g <- glm(am ~ wt + hp, data = mtcars, family = binomial)
  exg <- DALEX::explain(g, data = mtcars[c("wt", "hp")], y = mtcars$am, verbose = FALSE)
  expect_identical(exg$label, "lm")
  ours <- model_profile(exg, variables = "wt", grid_points = 5)
  expect_identical(ours$label, "lm")
  theirs <- DALEX::model_profile(exg, variables = "wt", N = NULL, grid_points = 5)
  expect_identical(unique(theirs$agr_profiles$`_label_`), unique(ours$agr_profiles$`_label_`))
  ex2 <- suppressWarnings(DALEX::explain(m, data = iris[1:4], y = iris$Species, verbose = FALSE, label = "my model"))
  expect_identical(model_profile(ex2, variables = "Petal.Length", grid_points = 5)$label, "my model")
})

test_that("a DALEX result of a classifier is drawn with its classes", {
  expect_equal(dalex_classes(c("lr.setosa", "lr.versicolor", "lr.virginica")),
               list(base = "lr", class = c("setosa", "versicolor", "virginica")))
  expect_equal(dalex_classes(c("_multinom..pred_setosa", "_multinom..pred_virginica")),
               list(base = "_multinom", class = c("setosa", "virginica")))
  expect_equal(dalex_classes(c("m.class_a", "m.class_b")), list(base = "m", class = c("class_a", "class_b")))
  expect_null(dalex_classes("lm"))
  expect_null(dalex_classes(c("lm", "rf")))
  skip_if_not_installed("DALEX")
  skip_if_not_installed("parsnip")
  # DALEX labels the classes of parsnip's probabilities "<label>..pred_<class>"
  # or "<label>.<class>".
  m <- parsnip::fit(parsnip::set_engine(parsnip::multinom_reg(), "nnet"), Species ~ ., data = iris)
  ex <- suppressWarnings(DALEX::explain(m, data = iris[1:4], y = iris$Species, verbose = FALSE, label = "mn"))
  set.seed(1)
  theirs <- DALEX::model_profile(ex, variables = "Petal.Length", N = 30)
  expect_true(all(startsWith(unique(theirs$agr_profiles$`_label_`), "mn.")))
  expect_length(unique(theirs$agr_profiles$`_label_`), 3)
  ours <- model_profile(ex, variables = "Petal.Length", grid_points = 11)
  p <- plot(ours, theirs)
  expect_equal(levels(layer_of(p, column = "_label_")$`_label_`),
               c(paste0("partial dependence: ", levels(iris$Species)),
                 paste0("partial dependence, DALEX: ", levels(iris$Species))))
  expect_equal(p$labels$colour, "mn")
})

test_that("DALEX explainers: DALEX's default predict gets the native engine; matrix data stays a matrix", {
  skip_if_not_installed("DALEX")
  skip_if_not_installed("ranger")
  d <- family_data()
  X <- d[c("a", "b", "c")]
  y01 <- as.integer(d$cls) - 1L
  rf <- ranger::ranger(x = X, y = y01, probability = TRUE, num.trees = 20, num.threads = 1, seed = 2)
  ex <- DALEX::explain(rf, data = X, y = y01, verbose = FALSE)
  a <- model_profile(ex, variables = "a", N = NULL, grid_points = 5)
  b <- model_profile(rf, X, variables = "a", N = NULL, grid_points = 5)
  expect_identical(a$engine, "native")
  expect_equal(a$agr_profiles$`_yhat_`, b$agr_profiles$`_yhat_`, tolerance = 1e-12)
  expect_identical(a$class, "1")
  # DALEX's positional call: model_profile(explainer, variables).
  p <- model_profile(ex, "b", N = NULL, grid_points = 4)
  expect_identical(p$variables, "b")
  # An explainer's own predict function is used as it is (predict engine).
  ex2 <- DALEX::explain(rf, data = X, y = y01, verbose = FALSE,
                        predict_function = function(m, nd) predict(m, nd)$predictions[, 2])
  expect_identical(model_profile(ex2, variables = "a", grid_points = 4)$engine, "predict")
  skip_if_not_installed("xgboost")
  M <- as.matrix(X)
  xg <- xgboost::xgb.train(params = list(objective = "reg:squarederror", nthread = 1),
                           data = xgboost::xgb.DMatrix(M, label = d$y), nrounds = 5, verbose = 0)
  exm <- DALEX::explain(xg, data = M, y = d$y, verbose = FALSE,
                        predict_function = function(m, x) predict(m, xgboost::xgb.DMatrix(x)))
  pm <- model_profile(exm, variables = "a", N = NULL, grid_points = 4)
  ref <- own_pd(pm, function(nd) predict(xg, as.matrix(nd)), X, "a")
  expect_equal(got_pd(pm, "a")[, 1], ref[, 1], tolerance = 1e-6)
})

test_that("type = 'ale' names the allowed values", {
  fit <- lm(mpg ~ wt, data = mtcars)
  expect_error(model_profile(fit, mtcars["wt"], type = "ale"), "accumulated")
})

test_that("xgboost and lightgbm read columns by name, whatever the data's order", {
  d <- family_data()
  X <- d[c("a", "b", "c")]
  Xr <- cbind(d["y"], d[c("c", "a", "b")])
  own_pd_in_order <- function(res, own) own_pd(res, function(nd) own(as.matrix(nd[c("a", "b", "c")])), Xr, "a")
  skip_if_not_installed("lightgbm")
  lg <- lightgbm::lgb.train(params = list(objective = "regression", num_leaves = 7, min_data_in_leaf = 5,
                                          verbose = -1, num_threads = 1),
                            data = lightgbm::lgb.Dataset(as.matrix(X), label = d$y), nrounds = 10)
  for (type in c("partial", "accumulated")) {
    res <- model_profile(lg, Xr, variables = "a", type = type, N = NULL, grid_points = 5, engine = "predict")
    ref <- model_profile(lg, X, variables = "a", type = type, N = NULL, grid_points = 5, engine = "predict")
    expect_equal(res$agr_profiles$`_yhat_`, ref$agr_profiles$`_yhat_`, tolerance = 1e-12)
  }
  pd <- model_profile(lg, Xr, variables = "a", N = NULL, grid_points = 5, engine = "predict")
  expect_equal(got_pd(pd, "a")[, 1], own_pd_in_order(pd, function(m) predict(lg, m))[, 1], tolerance = 1e-12)
  skip_if_not_installed("xgboost")
  xg <- xgboost::xgb.train(params = list(objective = "reg:squarederror", nthread = 1),
                           data = xgboost::xgb.DMatrix(as.matrix(X), label = d$y), nrounds = 5, verbose = 0)
  al <- model_profile(xg, Xr, variables = "a", type = "accumulated", N = NULL)
  ref <- model_profile(xg, X, variables = "a", type = "accumulated", N = NULL)
  expect_equal(al$agr_profiles$`_yhat_`, ref$agr_profiles$`_yhat_`, tolerance = 1e-12)
})

test_that("classes without training rows are not profiled or counted", {
  d <- iris[iris$Species != "setosa", ]
  X <- d[1:4]
  skip_if_not_installed("ranger")
  rf <- ranger::ranger(Species ~ ., data = d, probability = TRUE, num.trees = 10, num.threads = 1, seed = 1)
  expect_identical(model_adapter(rf)$positive, "virginica")
  expect_identical(model_profile(rf, X, variables = "Petal.Width", grid_points = 3)$class, "virginica")
  skip_if_not_installed("e1071")
  set.seed(1)
  s <- e1071::svm(Species ~ ., data = d, probability = TRUE)
  pd <- model_profile(s, X, variables = "Petal.Width", N = NULL, grid_points = 3)
  expect_identical(pd$class, "virginica")
  ref <- own_pd(pd, function(nd) attr(predict(s, nd, probability = TRUE), "probabilities")[, "virginica"], X, "Petal.Width")
  expect_equal(got_pd(pd, "Petal.Width")[, 1], ref[, 1], tolerance = 1e-10)
})

test_that("a binomial glm on a factor of three levels is labelled by what it predicts", {
  fit <- suppressWarnings(glm(Species ~ Sepal.Length, data = iris, family = binomial))
  expect_identical(model_adapter(fit)$classes, c("setosa", "not setosa"))
  expect_identical(model_profile(fit, iris["Sepal.Length"], grid_points = 3)$class, "not setosa")
})

test_that("a model that does not fit the data, or no model, says so", {
  fit <- lm(mpg ~ wt + hp + qsec, data = mtcars)
  expect_error(model_profile(fit, mtcars[c("wt", "hp")], variables = "wt"),
               "predict function failed.*qsec.*every column the model uses")
  expect_error(model_profile("fit", mtcars[c("wt", "hp")]), "a string, not a fitted model")
})

test_that("missing predictions name the columns with missing or infinite values", {
  X <- mtcars[c("wt", "hp", "qsec")]
  X$qsec[3] <- Inf
  f <- function(m, nd) ifelse(is.finite(nd$qsec), nd$wt + nd$qsec, NA)
  expect_error(model_profile(NULL, X, predict_function = f, variables = "wt", grid_points = 4),
               "missing value.*qsec")
})

test_that("missing values in the first rows do not stop a model whose predict() refuses them", {
  skip_if_not_installed("ranger")
  d <- family_data()
  rf <- ranger::ranger(y ~ a + b + c, data = d, num.trees = 10, num.threads = 1, seed = 1)
  X <- d[c("a", "b", "c")]
  X$a[1:2] <- NA
  expect_warning(al <- model_profile(rf, X, variables = "a", type = "accumulated", engine = "predict", N = NULL),
                 "missing values")
  ref <- model_profile(rf, X[-(1:2), ], variables = "a", type = "accumulated", engine = "predict", N = NULL)
  expect_equal(al$agr_profiles$`_yhat_`, ref$agr_profiles$`_yhat_`, tolerance = 1e-12)
})

test_that("a model read in a session that never loaded its package predicts", {
  skip_if_not_installed("ranger")
  skip_on_cran()
  fit <- ranger::ranger(mpg ~ ., data = mtcars, num.trees = 20, seed = 1, num.threads = 1)
  f <- tempfile(fileext = ".rds")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(c(f, script)), add = TRUE)
  saveRDS(fit, f)
  # A fresh R process: ranger's namespace is not loaded there.
  code <- sprintf(paste(
    "fit <- readRDS('%s')",
    "stopifnot(!isNamespaceLoaded('ranger'))",
    "p <- modelprofiles::model_profile(fit, data = mtcars, variables = 'wt', N = NULL,",
    "  engine = 'predict', grid_points = 5, keep_ice = FALSE)",
    "cat(format(p$agr_profiles[['_yhat_']], digits = 17), sep = '\\n')",
    sep = "\n"), f)
  writeLines(code, script)
  out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script), stdout = TRUE, stderr = TRUE,
                 env = paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)))
  expect_null(attr(out, "status"))
  grid <- model_profile(fit, data = mtcars, variables = "wt", N = NULL, engine = "predict",
                        grid_points = 5, keep_ice = FALSE)$agr_profiles
  ref <- vapply(grid[["_x_"]], function(z) {
    d <- mtcars
    d$wt <- z
    mean(predict(fit, d)$predictions)
  }, numeric(1))
  expect_equal(as.numeric(out), ref, tolerance = 1e-14)
})

test_that("a known family whose package is missing is refused by name", {
  expect_null(load_family_package("lm"))
  why <- load_family_package("ranger", c(ranger = "notapackage.mp"))
  expect_match(why[[1L]], "package {.pkg notapackage.mp}, which is not installed", fixed = TRUE)
  expect_match(why[["i"]], "install.packages", fixed = TRUE)
})

test_that("ranger on a character column: the same profile in either row order and engine", {
  skip_if_not_installed("ranger")
  set.seed(1)
  d <- data.frame(x = runif(300), s = sample(c("a", "b", "c"), 300, TRUE), stringsAsFactors = FALSE)
  d$y <- 2 * d$x + 3 * (d$s == "b") + rnorm(300, sd = 0.1)
  m <- ranger::ranger(y ~ x + s, data = d, num.trees = 20, num.threads = 1, seed = 1)
  X <- d[c("x", "s")]
  # The reference: ranger's own predict() on the whole background with s
  # set to each level (every level present, as in training, for the codes).
  ref <- vapply(c("a", "b", "c"), function(z) {
    Z <- rbind(transform(X, s = z), transform(X[1:3, ], s = c("a", "b", "c")))
    mean(predict(m, Z)$predictions[seq_len(nrow(X))])
  }, numeric(1))
  expect_gt(ref[["b"]] - ref[["a"]], 2)
  old <- options(modelprofiles.row_order = "auto")
  on.exit(options(old), add = TRUE)
  for (order in c("observation", "grid")) {
    options(modelprofiles.row_order = order)
    for (engine in c("predict", "native")) {
      pd <- model_profile(m, X, variables = "s", N = NULL, engine = engine)
      expect_equal(pd$agr_profiles$`_yhat_`, unname(ref), tolerance = 1e-12,
                   label = paste(order, engine))
    }
  }
  # A user's predict function gets the columns as they are.
  seen <- NULL
  pf <- function(model, newdata) {
    seen <<- class(newdata$s)
    predict(model, newdata)$predictions
  }
  model_profile(m, X, predict_function = pf, variables = "x", N = 20, grid_points = 3)
  expect_identical(seen, "character")
})

test_that("unpack_explainer() reads an explainer's parts, and a model is itself", {
  fit <- lm(mpg ~ wt, mtcars)
  expect_identical(unpack_explainer(fit), list(model = fit, as_matrix = FALSE))
  f <- function(m, d) predict(m, d)
  X <- mtcars["wt"]
  ex <- structure(list(model = fit, data = as.matrix(X), predict_function = f, label = "mine",
                       weights = rep(2, 32)), class = "explainer")
  u <- unpack_explainer(ex)
  expect_identical(u$model, fit)
  expect_identical(u$data, as.matrix(X))
  expect_identical(u$predict_function, f)
  expect_identical(u$label, "mine")
  expect_identical(u$weights, rep(2, 32))
  expect_true(u$as_matrix)
  # DALEX's default label (the model's last class) is kept, as DALEX keeps it.
  ex$label <- "lm"
  ex$data <- X
  u <- unpack_explainer(ex)
  expect_identical(u$label, "lm")
  expect_false(u$as_matrix)
})
