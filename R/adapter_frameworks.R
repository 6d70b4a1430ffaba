# Adapters of models from e1071 and of the modelling frameworks (caret,
# parsnip, workflows, mlr3): their default predict() gives classes or a
# tibble, so the adapter asks them for probabilities by name.

# e1071's svm: classification with probability = TRUE (Platt scaling), the
# probabilities in the order of the response's levels.
#' @export
model_adapter.svm <- function(model) {
  type <- model$type
  classifier <- isTRUE(type %in% c(0L, 1L))
  # The levels with rows in the training data, in level order.
  classes <- if (classifier) as.character(model$levels[sort(unique(model$labels))])
  refuse <- if (classifier && !isTRUE(model$compprob)) {
    c("The svm predicts classes, not probabilities.",
      i = "Fit it with {.code probability = TRUE}, or give a {.arg predict_function} that returns probabilities.")
  } else if (identical(type, 2L)) {
    "A one-class svm predicts classes; give a {.arg predict_function}."
  }
  new_adapter("svm", function(model, newdata) {
    if (!classifier) return(as.vector(stats::predict(model, newdata)))
    p <- attr(stats::predict(model, newdata, probability = TRUE), "probabilities")
    p[, classes, drop = FALSE]
  }, task = if (classifier) "classification" else "regression", classes = classes,
  positive = classes[2L], refuse = refuse)
}

# caret's train: class probabilities (type = "prob") of a classifier, in the
# order of its levels. A forest of method "ranger", "rf", "xgbTree" or "gbm"
# without preProcess is compiled in its place (caret_native()).
#' @export
model_adapter.train <- function(model) {
  label <- framework_label(model$method, "caret")
  if (!identical(model$modelType, "Classification")) {
    return(framework_adapter("train", function(model, newdata) {
      as.vector(stats::predict(model, newdata))
    }, caret_native(model, NULL), label = label))
  }
  classes <- as.character(model$levels)
  framework_adapter("train", function(model, newdata) {
    as.matrix(stats::predict(model, newdata, type = "prob"))[, classes, drop = FALSE]
  }, caret_native(model, classes), task = "classification", classes = classes, label = label)
}

# parsnip's model_fit and workflows' workflow: type = "prob" gives a tibble
# with a column .pred_<class> per class. A forest inside whose columns the
# preprocessing leaves as they are is compiled in its place
# (parsnip_native(), workflow_native()).
#' @export
model_adapter.model_fit <- function(model) {
  tidy_adapter("model_fit", model$spec$mode, as.character(model$lvl),
               framework_label(class(model$fit)[1L], "parsnip"), parsnip_native(model))
}

#' @export
model_adapter.workflow <- function(model) {
  fit <- tryCatch(workflows::extract_fit_parsnip(model), error = function(e) NULL)
  if (is.null(fit)) {
    return(new_adapter("workflow", function(model, newdata) NULL,
                       refuse = "The workflow is not fitted; fit it first."))
  }
  tidy_adapter("workflow", fit$spec$mode, as.character(fit$lvl),
               framework_label(class(fit$fit)[1L], "workflow"), workflow_native(model, fit))
}

# The label of a framework's model: the model inside it and the framework,
# e.g. "ranger (parsnip)".
framework_label <- function(inner, framework) {
  if (!is.character(inner) || length(inner) != 1L || is.na(inner) || !nzchar(inner)) return(framework)
  paste0(inner, " (", framework, ")")
}

tidy_adapter <- function(family, mode, classes, label = family, inner = NULL) {
  if (!identical(mode, "classification")) {
    return(framework_adapter(family, function(model, newdata) {
      as.data.frame(stats::predict(model, newdata))[[".pred"]]
    }, inner, label = label))
  }
  framework_adapter(family, function(model, newdata) {
    p <- stats::predict(model, newdata, type = "prob")
    class_columns(as.matrix(as.data.frame(p)[paste0(".pred_", classes)]), classes)
  }, inner, task = "classification", classes = classes, label = label)
}

# mlr3 learners (R6 objects): the probabilities of a classifier trained
# with predict_type = "prob", in the order of the task's classes; for a
# binary task, the task's positive class is profiled by default.
#' @export
model_adapter.Learner <- function(model) {
  family <- class(model)[1L]
  # The learner's id, e.g. "classif.ranger".
  label <- if (is.character(model$id) && length(model$id) == 1L) model$id else family
  if (!identical(model$task_type, "classif")) {
    return(framework_adapter(family, function(model, newdata) {
      model$predict_newdata(newdata)$response
    }, mlr3_native(model, NULL), label = label))
  }
  task <- model$state$train_task
  classes <- if (!is.null(task)) as.character(task$class_names)
  refuse <- if (!identical(model$predict_type, "prob")) c(
    "The mlr3 learner predicts classes, not probabilities.",
    i = "Set {.code learner$predict_type = \"prob\"} before training it, or give a {.arg predict_function}."
  )
  framework_adapter(family, function(model, newdata) {
    p <- model$predict_newdata(newdata)$prob
    if (is.null(classes)) p else p[, classes, drop = FALSE]
  }, mlr3_native(model, classes), task = "classification", classes = classes,
  positive = if (length(classes) == 2L) as.character(task$positive), refuse = refuse,
  label = label)
}

# The adapter of a framework's model: `inner` (framework_native(), in
# R/adapter_frameworks_native.R) is what the native engine compiles in its
# place. The rows are predicted fastest
# in the order the model inside prefers, and its predict() holds at least
# what that model's holds per row; its iterations are reported, and so are
# its native_min_rows and in-bag counts. Of two classes, the second is
# profiled by default.
framework_adapter <- function(family, predict, inner, classes = NULL,
                              positive = if (length(classes) == 2L) classes[2L],
                              refuse = NULL, ...) {
  new_adapter(family, predict, classes = classes, positive = positive,
              native = is.null(refuse) && !is.null(inner$model), tree = isTRUE(inner$tree),
              refuse = refuse, copies = max(2, inner$copies),
              row_bytes = inner$row_bytes %||% function(bytes) 0,
              iterations = inner$iterations, inner = inner,
              native_min_rows = inner$native_min_rows %||% 0, inbag_counts = inner$inbag_counts, ...)
}
