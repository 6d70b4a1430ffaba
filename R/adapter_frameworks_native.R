# The native engine in a framework's place (R/adapter_frameworks.R). A
# framework's model (parsnip, workflows, caret, mlr3) is a forest or a
# booster inside a wrapper that prepares the columns and names the classes.
# When the wrapper passes the data's columns to the model inside as they are,
# the native engine compiles that model and stands in for the framework's
# predict(): the numbers are the same and so are the class names (those of
# the framework, in its order). Where the preprocessing changes the columns
# (recipe steps that transform or rename them, caret's preProcess, formulas
# that turn factors into indicator columns or compute terms, mlr3 pipelines),
# the framework's predict() is used, and the adapter's `inner$why` says why.

# The adapter's `inner` (see ?model_adapter): `model` (NULL unless its own
# adapter has the native engine and `why` is NULL), `features` (named by
# the feature; NULL: the data's columns of the same names), `outputs` (NULL
# when the compiled outputs must be the framework's classes in its order, a
# forest's, checked by native_prepare(); else list(from = the compiled
# output of each class, NA for the one output of a binary booster,
# complement = TRUE where the class is 1 minus it)), `numeric` (does the
# framework pass the columns through as.matrix(), so that a column that is
# not numeric keeps the predict path?), `why`, and the model's own
# adapter's tree, copies, row_bytes, iterations (unless given),
# native_min_rows and inbag_counts.
framework_native <- function(model, why = NULL, features = NULL, outputs = NULL,
                             numeric = FALSE, iterations = NULL) {
  own <- tryCatch(model_adapter(model), error = function(e) NULL)
  if (is.null(why) && (is.null(own) || !own$native || !is.null(own$refuse))) {
    why <- paste0("the model inside, of class <", class(model)[1L], ">, is not one that the native engine compiles.")
  }
  list(model = if (is.null(why)) model, features = features, outputs = outputs,
       numeric = isTRUE(numeric), why = why, tree = isTRUE(own$tree), copies = own$copies,
       row_bytes = own$row_bytes, iterations = iterations %||% own$iterations,
       native_min_rows = own$native_min_rows, inbag_counts = own$inbag_counts)
}

# The classes of a binary booster whose one output is the probability of the
# first class (p_first) or of the second.
binary_outputs <- function(p_first) {
  list(from = c(NA_character_, NA_character_), complement = c(!p_first, p_first))
}

# The classes of a multiclass booster: class k is output codes[k].
multiclass_outputs <- function(codes) {
  list(from = as.character(codes), complement = rep(FALSE, length(codes)))
}

# The outputs of a booster's classes: of two, its one output (the first
# class's probability when p_first); of more, outputs `codes`.
class_outputs <- function(classes, p_first, codes = seq_along(classes) - 1L) {
  if (length(classes) == 2L) binary_outputs(p_first) else multiclass_outputs(codes)
}

# The data columns of a formula's terms, when the model sees them as they
# are: list(features) (the column of each model.frame() or model.matrix()
# column name), or list(why). indicators: "none" (parsnip's and hardhat's
# option: factors stay factors), else factors and logical columns become
# indicator columns (model.matrix()); classes: the columns' classes
# (.MFclass() names: "numeric", "factor", ...).
formula_columns <- function(terms, indicators = "traditional", classes = attr(terms, "dataClasses")) {
  labels <- attr(terms, "term.labels")
  cols <- vapply(labels, term_column, character(1), USE.NAMES = FALSE)
  if (!length(labels) || anyNA(cols) || length(attr(terms, "offset"))) {
    return(list(why = "its formula computes terms from the columns (transformations, interactions or offsets)."))
  }
  classes <- unname(classes[cols])
  plain <- if (identical(indicators, "none")) c("numeric", "logical", "factor", "ordered") else "numeric"
  if (length(classes) != length(cols) || anyNA(classes) || !all(classes %in% plain)) {
    return(list(why = if (identical(indicators, "none")) {
      "its formula reads columns of a type the model inside cannot take as they are."
    } else {
      "its formula turns factors (or logical columns) into indicator columns (model.matrix())."
    }))
  }
  features <- stats::setNames(c(cols, cols), c(labels, cols))
  list(features = features[!duplicated(names(features))])
}

# The .MFclass() names of data frame columns.
column_classes <- function(data) {
  vapply(data, function(x) {
    if (is.logical(x)) "logical" else if (is.ordered(x)) "ordered" else if (is.factor(x)) "factor"
    else if (is.numeric(x)) "numeric" else "other"
  }, character(1))
}

# parsnip: the fit's preprocessing (a formula's model frame or model matrix,
# or the columns by name for fit_xy()) and how its predict() makes the
# classes of the engine's predictions.
parsnip_native <- function(fit) {
  inner <- fit$fit
  terms <- fit$preproc$terms
  pre <- if (!is.null(terms)) formula_columns(terms, fit$preproc$options$indicators %||% "traditional")
  if (!is.null(pre$why)) return(framework_native(inner, pre$why))
  out <- parsnip_outputs(fit, inner)
  framework_native(inner, out$why, features = pre$features, outputs = out$outputs,
                   numeric = out$numeric)
}

# ranger and randomForest forests give a column per class, named by the
# levels (parsnip keeps them; the names are checked). xgboost (parsnip's
# xgb_train(): the label is 1 for the first level unless event_level =
# "second"; multiclass labels 0..K-1 in level order) and lightgbm (bonsai's
# train_lightgbm(): label 1 for the second level, 0..K-1 in level order, a
# factor's codes from 0) read the columns through as.matrix().
parsnip_outputs <- function(fit, inner) {
  xgb <- inherits(inner, "xgb.Booster")
  if (!xgb && !inherits(inner, "lgb.Booster")) return(list())
  if (xgb && identical(xgb_objective(inner), "binary:logitraw")) {
    return(list(why = "parsnip transforms the margin of an xgboost binary:logitraw model."))
  }
  if (!identical(fit$spec$mode, "classification")) return(list(numeric = TRUE))
  level <- if (xgb) fit$spec$eng_args$event_level else "second"
  level <- if (is.null(level)) "first" else rlang::get_expr(level)
  if (!identical(level, "first") && !identical(level, "second")) {
    return(list(why = "parsnip's event_level is not \"first\" or \"second\"."))
  }
  list(outputs = class_outputs(as.character(fit$lvl), identical(level, "first")), numeric = TRUE)
}

# workflows: the mold's blueprint (a formula, the variables as they are, or
# a recipe), then the parsnip fit inside (fitted on the molded columns with
# fit_xy()). A postprocessor (tailor) changes the predictions.
workflow_native <- function(model, fit) {
  if (length(model$post$actions)) {
    return(framework_native(fit$fit, "the workflow's postprocessor changes the predictions."))
  }
  bp <- tryCatch(workflows::extract_mold(model)$blueprint, error = function(e) NULL)
  pre <- workflow_columns(bp)
  if (!is.null(pre$why)) return(framework_native(fit$fit, pre$why))
  view <- parsnip_native(fit)
  if (is.null(view$model) || is.null(pre$features)) return(view)
  # The parsnip fit's features are the molded columns, by name unless it
  # maps them; those are the data's columns through the blueprint.
  molded <- if (is.null(view$features)) stats::setNames(names(pre$features), names(pre$features)) else view$features
  features <- stats::setNames(pre$features[molded], names(molded))
  view$features <- features[!is.na(features)]
  view
}

# The steps of a recipe that only drop columns (the rest keep their values).
recipe_dropping_steps <- c("step_rm", "step_zv", "step_nzv", "step_corr", "step_lincomb",
                           "step_filter_missing", "check_missing", "check_cols")

workflow_columns <- function(bp) {
  if (is.null(bp)) return(list(why = "its preprocessing cannot be read."))
  ptypes <- bp$ptypes$predictors
  classes <- if (is.data.frame(ptypes)) column_classes(ptypes)
  if (is.null(classes) || any(classes == "other")) {
    return(list(why = "the workflow's predictors include columns that are neither numbers, logical nor factors."))
  }
  if (inherits(bp, "xy_blueprint")) return(list())
  if (inherits(bp, "formula_blueprint")) {
    if (isTRUE(bp$intercept)) return(list(why = "the workflow's formula adds an intercept column."))
    terms <- tryCatch(stats::terms(bp$formula, data = ptypes), error = function(e) NULL)
    if (is.null(terms)) return(list(why = "the workflow's formula cannot be read."))
    return(formula_columns(terms, bp$indicators %||% "traditional", classes))
  }
  if (inherits(bp, "recipe_blueprint")) {
    steps <- vapply(bp$recipe$steps, function(s) class(s)[1L], character(1))
    other <- setdiff(steps, recipe_dropping_steps)
    if (length(other)) {
      return(list(why = paste0("the workflow's recipe transforms columns (", paste(unique(other), collapse = ", "), ").")))
    }
    return(list())
  }
  list(why = "the workflow's preprocessing is not a formula, variables or a recipe.")
}

# caret: the final model of methods "ranger", "rf", "xgbTree" (its own
# fit: the label is 1 for the first level, multiclass labels 0..K-1 in level
# order; the columns through as.matrix()) and "gbm" (bernoulli and adaboost:
# the response is 1 for the first level; predicted with n.trees =
# tuneValue$n.trees), without preProcess or bounds on the predictions. A
# formula goes through model.matrix(): numeric columns only.
caret_methods <- c("ranger", "rf", "xgbTree", "gbm")

caret_native <- function(model, classes) {
  inner <- model$finalModel
  method <- model$method
  bounds <- model$control$predictionBounds
  why <- if (!is.null(model$preProcess)) {
    "caret's preProcess transforms the columns."
  } else if (!isTRUE(method %in% caret_methods)) {
    paste0("caret's method \"", method, "\" is not one whose model the native engine compiles (",
           paste(caret_methods, collapse = ", "), ").")
  } else if (!is.null(bounds) && !(is.logical(bounds) && !anyNA(bounds) && !any(bounds))) {
    "caret bounds the predictions (predictionBounds)."
  }
  pre <- if (is.null(why) && inherits(model, "train.formula")) formula_columns(model$terms)
  why <- why %||% pre$why
  if (!is.null(why)) return(framework_native(inner, why))
  outputs <- NULL
  iterations <- NULL
  if (identical(method, "xgbTree")) {
    if (identical(xgb_objective(inner), "binary:logitraw")) {
      return(framework_native(inner, "caret transforms the margin of an xgboost binary:logitraw model."))
    }
    if (length(classes)) outputs <- class_outputs(classes, TRUE)
  }
  if (identical(method, "gbm")) {
    dist <- inner$distribution$name
    if (length(classes) && !identical(dist, "multinomial")) {
      if (length(classes) != 2L || !isTRUE(dist %in% c("bernoulli", "adaboost"))) {
        return(framework_native(inner, paste0("caret's probabilities of a gbm of distribution \"", dist, "\" are not the model's.")))
      }
      outputs <- binary_outputs(TRUE)
    }
    used <- suppressWarnings(as.integer(inner$tuneValue$n.trees))
    if (length(used) != 1L || is.na(used)) used <- NA_integer_
    iterations <- c(used = used, fitted = suppressWarnings(as.integer(inner$n.trees)))
    if (!identical(used, gbm_predict_trees(inner))) {
      return(framework_native(inner, "caret predicts the gbm with other iterations than the model's own choice.",
                              iterations = iterations))
    }
  }
  framework_native(inner, features = pre$features, outputs = outputs,
                   numeric = identical(method, "xgbTree"), iterations = iterations)
}

# mlr3: learners of mlr3learners around ranger (classif.ranger keeps the
# forest as $model, regr.ranger as $model$model) and xgboost (the label is
# K - the class's position, so 1 for the first class of two, whose
# probability is p; the columns through as.matrix()). Not pipelines
# (GraphLearner), offsets, or predict parameters that change the numbers.
mlr3_predict_params <- c("num.threads", "nthread", "verbose", "seed", "se.method", "num.trees")

mlr3_native <- function(model, classes) {
  inner <- model$model
  if (is.list(inner) && !is.object(inner) && is.object(inner$model)) inner <- inner$model
  if (inherits(model, "GraphLearner")) {
    return(framework_native(inner, "an mlr3 pipeline (GraphLearner) may transform the columns."))
  }
  task <- model$state$train_task
  if (is.null(task)) return(framework_native(inner, "the mlr3 learner is not trained."))
  if ("offset" %in% task$properties) {
    return(framework_native(inner, "the mlr3 task has an offset."))
  }
  if (!isTRUE(model$predict_type %in% c("prob", "response", "se"))) {
    return(framework_native(inner, paste0("the mlr3 learner predicts \"", model$predict_type, "\".")))
  }
  pv <- tryCatch(model$param_set$get_values(tags = "predict"), error = function(e) NULL)
  other <- setdiff(names(pv), mlr3_predict_params)
  if (inherits(inner, "ranger") && !is.null(pv$num.trees) && !identical(as.integer(pv$num.trees), as.integer(inner$num.trees))) {
    other <- c(other, "num.trees")
  }
  if (length(other)) {
    return(framework_native(inner, paste0("the mlr3 learner's predict parameters (", paste(other, collapse = ", "), ") may change the numbers.")))
  }
  xgb <- inherits(inner, "xgb.Booster")
  K <- length(classes)
  if (xgb && K && !isTRUE(xgb_objective(inner) %in% c("binary:logistic", "multi:softprob"))) {
    return(framework_native(inner, "the mlr3 learner's xgboost objective is not binary:logistic or multi:softprob."))
  }
  outputs <- if (xgb && K) class_outputs(classes, TRUE, K - seq_len(K))
  framework_native(inner, outputs = outputs, numeric = xgb)
}
