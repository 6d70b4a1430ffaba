# Adapters of linear and additive models: lm, glm, mgcv's gam and bam,
# glmnet and cv.glmnet, nnet's multinom.

#' @export
model_adapter.lm <- function(model) {
  new_adapter("lm", function(model, newdata) stats::predict(model, newdata), linear = TRUE)
}

# A multi-response lm: one column per response; no linear engine.
#' @export
model_adapter.mlm <- function(model) {
  new_adapter("mlm", function(model, newdata) stats::predict(model, newdata))
}

#' @export
model_adapter.glm <- function(model) glm_adapter(model, "glm", linear = TRUE)

# mgcv's gam and bam inherit from glm, but their smooth terms (s(), te(),
# ti()) are not linear in the columns: no linear engine.
#' @export
model_adapter.gam <- function(model) glm_adapter(model, class(model)[1L], linear = FALSE)

# The response scale; for a binomial model the probabilities of both classes
# (named by binomial_classes()).
glm_adapter <- function(model, family, linear) {
  fam <- tryCatch(stats::family(model)$family, error = function(e) "")
  binomial <- fam %in% c("binomial", "quasibinomial")
  classes <- if (binomial) binomial_classes(model)
  new_adapter(family, function(model, newdata) {
    p <- as.vector(stats::predict(model, newdata, type = "response"))
    if (binomial) class_columns(cbind(1 - p, p), classes) else p
  }, task = if (binomial) "classification" else "regression", classes = classes,
  positive = classes[2L], linear = linear)
}

# Class names of a binomial glm: the levels of a factor response, FALSE/TRUE
# for a logical one, else 0/1.
binomial_classes <- function(model) {
  y <- if (!is.null(model$model)) stats::model.response(model$model)
  if (is.factor(y)) {
    # glm() takes the first level as failure and every other as success.
    lv <- levels(y)
    return(if (length(lv) > 2L) c(lv[1L], paste0("not ", lv[1L])) else lv[1:2])
  }
  if (is.logical(y)) return(c("FALSE", "TRUE"))
  c("0", "1")
}

#' @export
model_adapter.multinom <- function(model) {
  classes <- as.character(model$lev)
  new_adapter("multinom", function(model, newdata) {
    p <- stats::predict(model, newdata, type = "probs")
    # Two classes: nnet gives the probability of the second one.
    class_columns(if (is.matrix(p)) p else cbind(1 - p, p), classes)
  }, task = "classification", classes = classes, positive = classes[2L])
}

# glmnet: the response scale at one penalty. A fit over a path of lambdas
# must be told which one (glmnet's own predict() gives a column per lambda,
# which would be read as classes); cv.glmnet uses lambda.1se, as its
# predict() does. The rows are passed as the numeric matrix of the fit's
# columns, by name.
#' @export
model_adapter.glmnet <- function(model) {
  lambda <- model$lambda
  if (length(lambda) != 1L) {
    return(glmnet_adapter(model, NULL, refuse = c(
      paste0("The glmnet fit holds a path of ", length(lambda), " penalties; choose one."),
      i = "Fit it with one {.arg lambda}, use {.fn glmnet::cv.glmnet} (its {.code lambda.1se} is used), or give {.code predict_function = function(m, x) predict(m, as.matrix(x), s = 0.01, type = \"response\")}."
    )))
  }
  glmnet_adapter(model, lambda)
}

#' @export
model_adapter.cv.glmnet <- function(model) {
  glmnet_adapter(model$glmnet.fit, "lambda.1se", family = "cv.glmnet")
}

glmnet_adapter <- function(fit, s, refuse = NULL, family = "glmnet") {
  beta <- if (is.list(fit$beta)) fit$beta[[1L]] else fit$beta
  features <- rownames(beta)
  kind <- class(fit)[1L]
  classifier <- kind %in% c("lognet", "multnet")
  classes <- if (classifier && !is.null(fit$classnames)) as.character(fit$classnames)
  predict <- function(model, newdata) {
    x <- glmnet_rows(newdata, features)
    p <- stats::predict(model, newx = x, s = s, type = "response")
    if (length(dim(p)) == 3L) p <- matrix(p, dim(p)[1L], dim(p)[2L])
    if (kind == "lognet") p <- cbind(1 - as.vector(p), as.vector(p))
    if (is.null(classes)) as.vector(p) else class_columns(p, classes)
  }
  new_adapter(family, predict, task = if (classifier) "classification" else "regression",
              classes = classes, positive = if (length(classes) == 2L) classes[2L],
              refuse = refuse)
}

# The numeric matrix of a glmnet fit's columns (by name) from rows.
glmnet_rows <- function(newdata, features) {
  if (is.matrix(newdata)) newdata <- as.data.frame(newdata)
  absent <- setdiff(features, names(newdata))
  if (length(absent)) {
    cli::cli_abort("The data lack the glmnet fit's column{?s} {.val {absent}}.", call = NULL)
  }
  x <- newdata[features]
  if (!all(vapply(x, is.numeric, logical(1)))) {
    cli::cli_abort(c(
      "A glmnet fit reads a numeric matrix; the data's columns must all be numeric.",
      i = "Profile the columns of the matrix it was fitted on ({.fn stats::model.matrix} of your data)."
    ), call = NULL)
  }
  as.matrix(x)
}
