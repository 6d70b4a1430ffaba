# Forests inside frameworks (R/adapter_frameworks_native.R): a parsnip model_fit, a
# workflow whose preprocessing leaves the columns as they are, caret's train
# without preProcess and an mlr3 learner around a ranger, randomForest,
# xgboost, lightgbm or gbm model are profiled by the native engine of the
# model inside, under the framework's class names in its order, with the
# numbers of the framework's own predict(); preprocessing that changes the
# columns keeps the predict path and says why.

test_that("parsnip: ranger and randomForest forests are profiled natively, by class, as predict()", {
  skip_if_not_installed("parsnip")
  d <- frame_data()
  X <- d[c("a", "b", "c")]
  for (engine in c("ranger", "randomForest")) {
    skip_if_not_installed(engine)
    set.seed(1)
    reg <- parsnip::fit(parsnip::set_engine(parsnip::rand_forest(mode = "regression", trees = 8), engine),
                        y ~ a + b + c, data = d)
    expect_framework_native(reg, X, function(nd) predict(reg, nd)$.pred)
    spec <- parsnip::set_engine(parsnip::rand_forest(mode = "classification", trees = 8), engine)
    bin <- parsnip::fit(spec, cls ~ a + b + c, data = d)
    expect_framework_native(bin, X, function(nd) predict(bin, nd, type = "prob"), c("no", "yes"))
    # fit_xy(), three classes.
    multi <- parsnip::fit_xy(spec, x = X, y = d$m3)
    pd <- expect_framework_native(multi, X, function(nd) predict(multi, nd, type = "prob"), c("lo", "mid", "hi"))
    expect_identical(pd$label, paste0(engine, " (parsnip)"))
  }
})

test_that("parsnip: xgboost boosters, binary by event_level and multiclass, to float precision", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("xgboost")
  d <- frame_data()
  X <- d[c("a", "b", "c")]
  reg <- parsnip::fit(parsnip::set_engine(parsnip::boost_tree(mode = "regression", trees = 8), "xgboost", nthread = 1),
                      y ~ a + b + c, data = d)
  expect_framework_native(reg, X, function(nd) predict(reg, nd)$.pred, tol = 1e-6)
  # (event_level as a literal: parsnip reads the expression.)
  specs <- list(
    parsnip::set_engine(parsnip::boost_tree(mode = "classification", trees = 8), "xgboost", nthread = 1),
    parsnip::set_engine(parsnip::boost_tree(mode = "classification", trees = 8), "xgboost", nthread = 1,
                        event_level = "second")
  )
  for (spec in specs) {
    bin <- parsnip::fit(spec, cls ~ a + b + c, data = d)
    expect_framework_native(bin, X, function(nd) predict(bin, nd, type = "prob"), c("no", "yes"), tol = 1e-6)
  }
  multi <- parsnip::fit(specs[[1]], m3 ~ a + b + c, data = d)
  expect_framework_native(multi, X, function(nd) predict(multi, nd, type = "prob"), c("lo", "mid", "hi"), tol = 1e-6)
})

test_that("parsnip: formulas that compute terms keep predict(), and say why; factors stay factors for a forest", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("ranger")
  d <- frame_data()
  d$f <- factor(sample(c("u", "v", "w"), nrow(d), TRUE))
  X <- d[c("a", "b", "f")]
  # ranger takes the factor as it is: native.
  rf <- parsnip::fit(parsnip::set_engine(parsnip::rand_forest(mode = "classification", trees = 8), "ranger"),
                     cls ~ a + b + f, data = d)
  expect_framework_native(rf, X, function(nd) predict(rf, nd, type = "prob"), c("no", "yes"))
  # A computed term.
  lg <- parsnip::fit(parsnip::set_engine(parsnip::rand_forest(mode = "regression", trees = 5), "ranger"),
                     y ~ log(b) + a, data = d)
  expect_match(model_adapter(lg)$inner$why, "computes terms")
  expect_identical(model_profile(lg, X, variables = "a", N = NULL, grid_points = 4)$engine, "predict")
})

test_that("workflows: formula, variables and column-dropping recipes go native; transforming recipes do not", {
  skip_if_not_installed("workflows")
  skip_if_not_installed("parsnip")
  skip_if_not_installed("recipes")
  skip_if_not_installed("ranger")
  d <- frame_data()
  X <- d[c("a", "b", "c")]
  spec <- parsnip::set_engine(parsnip::rand_forest(mode = "classification", trees = 8), "ranger")
  base <- workflows::add_model(workflows::workflow(), spec)
  own <- function(wf) function(nd) predict(wf, nd, type = "prob")
  wf <- parsnip::fit(workflows::add_formula(base, m3 ~ a + b + c), data = d)
  pd <- expect_framework_native(wf, X, own(wf), c("lo", "mid", "hi"))
  expect_identical(pd$label, "ranger (workflow)")
  wv <- parsnip::fit(workflows::add_variables(base, outcomes = cls, predictors = c(a, b, c)), data = d)
  expect_framework_native(wv, X, own(wv), c("no", "yes"))
  rec <- recipes::step_rm(recipes::recipe(cls ~ a + b + c, data = d), c)
  wr <- parsnip::fit(workflows::add_recipe(base, rec), data = d)
  expect_framework_native(wr, X, own(wr), c("no", "yes"))
  norm <- recipes::step_normalize(recipes::recipe(cls ~ a + b + c, data = d), recipes::all_predictors())
  wn <- parsnip::fit(workflows::add_recipe(base, norm), data = d)
  expect_match(model_adapter(wn)$inner$why, "step_normalize")
  pn <- model_profile(wn, X, variables = "a", N = NULL, grid_points = 4)
  expect_identical(pn$engine, "predict")
  expect_error(model_profile(wn, X, variables = "a", N = NULL, engine = "native"), "transforms columns")
  skip_if_not_installed("xgboost")
  sx <- parsnip::set_engine(parsnip::boost_tree(mode = "regression", trees = 8), "xgboost", nthread = 1)
  bx <- workflows::add_model(workflows::workflow(), sx)
  wx <- parsnip::fit(workflows::add_formula(bx, y ~ a + b + c), data = d)
  expect_framework_native(wx, X, function(nd) predict(wx, nd)$.pred, tol = 1e-6)
  # xgboost's formula makes indicator columns of a factor (one-hot).
  d$f <- factor(sample(c("u", "v", "w"), nrow(d), TRUE))
  wf <- parsnip::fit(workflows::add_formula(bx, y ~ a + b + f), data = d)
  ad <- model_adapter(wf)
  expect_false(ad$native)
  expect_match(ad$inner$why, "indicator columns")
  Xf <- d[c("a", "b", "f")]
  expect_identical(model_profile(wf, Xf, variables = "a", N = NULL, grid_points = 4)$engine, "predict")
  expect_error(model_profile(wf, Xf, variables = "a", N = NULL, engine = "native"), "indicator columns")
})

test_that("caret: ranger, rf, xgbTree and gbm final models go native; preProcess and indicator formulas do not", {
  skip_if_not_installed("caret")
  d <- frame_data()
  X <- d[c("a", "b", "c")]
  none <- suppressWarnings(caret::trainControl(method = "none", classProbs = TRUE))
  reg <- caret::trainControl(method = "none")
  train <- function(...) suppressWarnings(caret::train(...))
  prob <- function(fit) function(nd) predict(fit, nd, type = "prob")
  raw <- function(fit) function(nd) predict(fit, nd)
  if (requireNamespace("ranger", quietly = TRUE)) {
    grid <- data.frame(mtry = 2, splitrule = "gini", min.node.size = 5)
    rb <- train(cls ~ a + b + c, data = d, method = "ranger", trControl = none, num.trees = 8, tuneGrid = grid)
    pd <- expect_framework_native(rb, X, prob(rb), c("no", "yes"))
    expect_identical(pd$label, "ranger (caret)")
    rr <- train(x = X, y = d$y, method = "ranger", trControl = reg, num.trees = 8,
                tuneGrid = data.frame(mtry = 2, splitrule = "variance", min.node.size = 5))
    expect_framework_native(rr, X, raw(rr))
    pre <- train(cls ~ a + b + c, data = d, method = "ranger", trControl = none, num.trees = 8,
                 tuneGrid = grid, preProcess = "center")
    expect_match(model_adapter(pre)$inner$why, "preProcess")
    expect_identical(model_profile(pre, X, variables = "a", N = NULL, grid_points = 4)$engine, "predict")
    d$f <- factor(sample(c("u", "v"), nrow(d), TRUE))
    ff <- train(cls ~ a + b + f, data = d, method = "ranger", trControl = none, num.trees = 8, tuneGrid = grid)
    expect_match(model_adapter(ff)$inner$why, "indicator columns")
  }
  if (requireNamespace("randomForest", quietly = TRUE)) {
    set.seed(3)
    rf <- train(m3 ~ a + b + c, data = d, method = "rf", trControl = none, ntree = 8, tuneGrid = data.frame(mtry = 2))
    expect_framework_native(rf, X, prob(rf), c("lo", "mid", "hi"))
  }
  if (requireNamespace("xgboost", quietly = TRUE)) {
    xg <- data.frame(nrounds = 6, max_depth = 2, eta = 0.3, gamma = 0, colsample_bytree = 1,
                     min_child_weight = 1, subsample = 1)
    xb <- train(cls ~ a + b + c, data = d, method = "xgbTree", trControl = none, tuneGrid = xg, nthread = 1)
    expect_framework_native(xb, X, prob(xb), c("no", "yes"), tol = 1e-6)
    xm <- train(x = X, y = d$m3, method = "xgbTree", trControl = none, tuneGrid = xg, nthread = 1)
    expect_framework_native(xm, X, prob(xm), c("lo", "mid", "hi"), tol = 1e-6)
  }
  if (requireNamespace("gbm", quietly = TRUE)) {
    gg <- data.frame(n.trees = 15, interaction.depth = 2, shrinkage = 0.2, n.minobsinnode = 5)
    gb <- train(x = X, y = d$cls, method = "gbm", trControl = none, tuneGrid = gg, verbose = FALSE)
    expect_framework_native(gb, X, prob(gb), c("no", "yes"))
    gm <- train(x = X, y = d$m3, method = "gbm", trControl = none, tuneGrid = gg, verbose = FALSE)
    expect_framework_native(gm, X, prob(gm), c("lo", "mid", "hi"))
    gr <- train(x = X, y = d$y, method = "gbm", trControl = reg, tuneGrid = gg, verbose = FALSE)
    expect_framework_native(gr, X, raw(gr))
    expect_identical(model_adapter(gr)$iterations, c(used = 15L, fitted = 15L))
  }
})

test_that("mlr3: ranger learners go native; class order of the task", {
  skip_if_not_installed("mlr3")
  skip_if_not_installed("mlr3learners")
  skip_if_not_installed("ranger")
  d <- frame_data()
  X <- d[c("a", "b", "c")]
  task <- mlr3::as_task_classif(d[c("a", "b", "c", "cls")], target = "cls", positive = "yes")
  lb <- mlr3::lrn("classif.ranger", predict_type = "prob", num.trees = 8)
  lb$train(task)
  # The positive class first, as mlr3 orders it.
  pd <- expect_framework_native(lb, X, function(nd) lb$predict_newdata(nd)$prob, c("yes", "no"))
  expect_identical(pd$label, "classif.ranger")
  task3 <- mlr3::as_task_classif(d[c("a", "b", "c", "m3")], target = "m3")
  lm3 <- mlr3::lrn("classif.ranger", predict_type = "prob", num.trees = 8)
  lm3$train(task3)
  expect_framework_native(lm3, X, function(nd) lm3$predict_newdata(nd)$prob, task3$class_names)
  lr <- mlr3::lrn("regr.ranger", num.trees = 8)
  lr$train(mlr3::as_task_regr(d[c("a", "b", "c", "y")], target = "y"))
  expect_framework_native(lr, X, function(nd) lr$predict_newdata(nd)$response)
  # xgboost learners (mlr3learners' current ones need xgboost >= 2).
  skip_if_not_installed("xgboost")
  lx <- mlr3::lrn("classif.xgboost", predict_type = "prob", nrounds = 6, nthread = 1)
  trained <- tryCatch({
    lx$train(task3)
    TRUE
  }, error = function(e) FALSE)
  skip_if_not(trained, "mlr3learners' xgboost learner does not train with this xgboost")
  expect_framework_native(lx, X, function(nd) lx$predict_newdata(nd)$prob, task3$class_names, tol = 1e-6)
  lx2 <- mlr3::lrn("classif.xgboost", predict_type = "prob", nrounds = 6, nthread = 1)
  lx2$train(task)
  expect_framework_native(lx2, X, function(nd) lx2$predict_newdata(nd)$prob, c("yes", "no"), tol = 1e-6)
})
