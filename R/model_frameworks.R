# Adapters of models from e1071 and of the modelling frameworks (caret,
# parsnip, workflows, mlr3): their default predict() gives classes or a
# tibble, so the adapter asks them for probabilities by name.

# e1071's svm: classification with probability = TRUE (Platt scaling), the
# probabilities in the order of the response's levels.
#' @export
model_adapter.svm <- function(model) {
  type <- model$type
  if (isTRUE(type %in% c(0L, 1L))) {
    # The levels with rows in the training data, in level order.
    classes <- as.character(model$levels[sort(unique(model$labels))])
    refuse <- if (!isTRUE(model$compprob)) c(
      "The svm predicts classes, not probabilities.",
      i = "Fit it with {.code probability = TRUE}, or give a {.arg predict_function} that returns probabilities."
    )
    return(new_adapter("svm", function(model, newdata) {
      p <- attr(stats::predict(model, newdata, probability = TRUE), "probabilities")
      p <- p[, classes, drop = FALSE]
      colnames(p) <- classes
      p
    }, task = "classification", classes = classes, positive = classes[2L], refuse = refuse))
  }
  new_adapter("svm", function(model, newdata) as.vector(stats::predict(model, newdata)),
              refuse = if (identical(type, 2L)) "A one-class svm predicts classes; give a {.arg predict_function}.")
}

# caret's train: class probabilities (type = "prob") of a classifier, in the
# order of its levels.
#' @export
model_adapter.train <- function(model) {
  if (identical(model$modelType, "Classification")) {
    classes <- as.character(model$levels)
    return(new_adapter("train", function(model, newdata) {
      p <- as.matrix(stats::predict(model, newdata, type = "prob"))
      p <- p[, classes, drop = FALSE]
      colnames(p) <- classes
      p
    }, task = "classification", classes = classes,
    positive = if (length(classes) == 2L) classes[2L], label = framework_label(model$method, "caret")))
  }
  new_adapter("train", function(model, newdata) as.vector(stats::predict(model, newdata)),
              label = framework_label(model$method, "caret"))
}

# parsnip's model_fit and workflows' workflow: type = "prob" gives a tibble
# with a column .pred_<class> per class.
#' @export
model_adapter.model_fit <- function(model) {
  tidy_adapter("model_fit", model$spec$mode, as.character(model$lvl),
               framework_label(class(model$fit)[1L], "parsnip"))
}

#' @export
model_adapter.workflow <- function(model) {
  fit <- tryCatch(workflows::extract_fit_parsnip(model), error = function(e) NULL)
  if (is.null(fit)) {
    return(new_adapter("workflow", function(model, newdata) NULL,
                       refuse = "The workflow is not fitted; fit it first."))
  }
  tidy_adapter("workflow", fit$spec$mode, as.character(fit$lvl),
               framework_label(class(fit$fit)[1L], "workflow"))
}

# The label of a framework's model: the model inside it and the framework,
# e.g. "ranger (parsnip)".
framework_label <- function(inner, framework) {
  if (!is.character(inner) || length(inner) != 1L || is.na(inner) || !nzchar(inner)) return(framework)
  paste0(inner, " (", framework, ")")
}

tidy_adapter <- function(family, mode, classes, label = family) {
  if (identical(mode, "classification")) {
    return(new_adapter(family, function(model, newdata) {
      p <- stats::predict(model, newdata, type = "prob")
      p <- as.matrix(as.data.frame(p)[paste0(".pred_", classes)])
      colnames(p) <- classes
      p
    }, task = "classification", classes = classes,
    positive = if (length(classes) == 2L) classes[2L], label = label))
  }
  new_adapter(family, function(model, newdata) {
    as.data.frame(stats::predict(model, newdata))[[".pred"]]
  }, label = label)
}

# mlr3 learners (R6 objects): the probabilities of a classifier trained
# with predict_type = "prob", in the order of the task's classes; for a
# binary task, the task's positive class is profiled by default.
#' @export
model_adapter.Learner <- function(model) {
  family <- class(model)[1L]
  # The learner's id, e.g. "classif.ranger".
  label <- if (is.character(model$id) && length(model$id) == 1L) model$id else family
  if (identical(model$task_type, "classif")) {
    task <- model$state$train_task
    classes <- if (!is.null(task)) as.character(task$class_names)
    positive <- if (!is.null(task) && length(classes) == 2L) as.character(task$positive)
    refuse <- if (!identical(model$predict_type, "prob")) c(
      "The mlr3 learner predicts classes, not probabilities.",
      i = "Set {.code learner$predict_type = \"prob\"} before training it, or give a {.arg predict_function}."
    )
    return(new_adapter(family, function(model, newdata) {
      p <- model$predict_newdata(newdata)$prob
      if (!is.null(classes)) p <- p[, classes, drop = FALSE]
      p
    }, task = "classification", classes = classes, positive = positive, refuse = refuse, label = label))
  }
  new_adapter(family, function(model, newdata) model$predict_newdata(newdata)$response, label = label)
}
