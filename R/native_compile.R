# Compiling a model for the native engine: native_compile(), the call's
# store of compiled models, compile_model() and the models' fingerprints.

# native_model() followed by the structural check of the result (once per
# model: node and feature indices in range, every walk ends), with the nodes
# packed for the C++ loops kept in `cache` (an external pointer; without it,
# or after the object was saved and loaded, each call packs them again). NULL
# when the model is not supported. A converter may instead return the packing
# itself (kind "packed", checked as it is packed), which lives only as long
# as the R session.
native_compile <- function(model, fingerprint = NULL) {
  nm <- native_model(model, fingerprint)
  if (is.null(nm)) return(NULL)
  if (identical(nm$kind, "packed")) return(nm)
  nm$cache <- tryCatch(native_pack(nm), error = function(e) {
    cli::cli_abort("Internal error: the compiled {nm$source} model is malformed: {conditionMessage(e)}", call = NULL)
  })
  nm
}

# CACHE (explicit): the call's store of compiled models, an environment
# made by setup_inputs() for each call and shared by all its setups (a
# profile per subgroup, the three of compare_profiles(), ...), so that a
# model is compiled once per call; a compile_model() result arrives in it
# already. Lifetime: one call of an entry point, so nothing needs clearing
# (see the section "Caches" of ?compile_model). An entry is the model (a
# reference, no copy: identical() is immediate for the same object and
# decides for equal ones), its native_fingerprint() (the content of a
# booster outside R, which can change in place) and its compilation (NULL
# for a model that cannot be compiled).
native_store <- function(compiled = NULL) {
  store <- new.env(parent = emptyenv())
  store$entries <- if (!is.null(compiled)) list(compiled$entry) else list()
  store
}

# The compilation of `model` from the store, else compiled now and kept.
native_compile_cached <- function(model, store) {
  fp <- native_fingerprint(model)
  k <- native_store_find(store, model, fp)
  if (k > 0L) return(store$entries[[k]]$compiled)
  nm <- native_compile(model, fp)
  if (!identical(fp, NA)) {
    store$entries <- c(store$entries, list(list(model = model, fingerprint = fp, compiled = nm)))
  }
  nm
}

# The position of the model's entry in the store, or 0 (always 0 for a
# model whose content cannot be fingerprinted).
native_store_find <- function(store, model, fp = native_fingerprint(model)) {
  if (is.null(store) || identical(fp, NA)) return(0L)
  for (k in seq_along(store$entries)) {
    e <- store$entries[[k]]
    if (identical(e$model, model) && identical(e$fingerprint, fp)) return(k)
  }
  0L
}

#' Compile a tree ensemble once, for many calls
#'
#' The native engine (see `engine` in [model_profile()]) compiles a tree
#' ensemble (ranger, randomForest, gbm, xgboost, lightgbm, also inside
#' parsnip, workflows, caret and mlr3) into the package's own
#' representation of its trees at the start of each call, and drops it when
#' the call returns. That takes a fraction of a second for most models, and
#' seconds for a forest of millions of nodes. `compile_model()` compiles it
#' once: pass its result as `x` to [model_profile()],
#' [model_profile_2d()], [h_statistic()], [compare_profiles()] or
#' [hidden_interactions()] in place of the model, and no call compiles it
#' again. The result holds the model and its compilation; the compilation's
#' memory (printed) is yours to keep or drop, and is counted in each call's
#' `memory_budget`. A model changed after it was compiled (a booster updated
#' in place) is compiled again by the calls that use it.
#'
#' @section Caches:
#' The package keeps no compiled model between calls on its own: within a
#' call, each model is compiled once (for every variable, subgroup and
#' profile of the call) and dropped when the call returns; a compilation
#' that outlives calls is the one you hold, a `compile_model()` result,
#' freed with [rm()]. Under a [future::plan()], the globals of your
#' `predict_function` (found once per call) and what a call learnt of the
#' workers' speed are kept through a weak reference to the call, so they
#' go with it, and the next call replaces them. A worker of a multisession
#' or cluster plan keeps the model of the last call whose futures it ran
#' (one model, so that it travels once to each worker of a call; the next
#' call's replaces it, and a new plan starts new workers). None of these
#' needs clearing; none changes a result.
#'
#' @param x A fitted model of a family the native engine compiles.
#' @returns An object of class `mp_compiled`: a list with `model` (`x`),
#'   `trees`, `nodes` and `bytes` (the compilation's size).
#' @export
#' @examples
#' if (requireNamespace("randomForest", quietly = TRUE)) {
#'   set.seed(1)
#'   fit <- randomForest::randomForest(mpg ~ ., data = mtcars, ntree = 50)
#'   cm <- compile_model(fit)
#'   cm
#'   pd <- model_profile(cm, mtcars[-1], variables = "wt")
#'   al <- model_profile(cm, mtcars[-1], variables = "wt", type = "accumulated")
#' }
compile_model <- function(x) {
  call <- rlang::current_env()
  if (inherits(x, "mp_compiled")) return(x)
  adapter <- model_adapter(x)
  source <- adapter$inner$model %||% x
  nm <- if (isTRUE(adapter$native)) native_compile(source, native_fingerprint(source))
  if (is.null(nm)) {
    why <- adapter$inner$why %||% paste0("a <", class(source)[1L], "> model has no trees that modelprofiles reads")
    cli::cli_abort(c("{.arg x} cannot be compiled: {why}.",
                     i = "The native engine compiles ranger, randomForest, gbm, xgboost and lightgbm models."),
                   call = call)
  }
  size <- native_size(nm)
  structure(list(model = x, trees = size[["trees"]], nodes = size[["nodes"]], bytes = size[["bytes"]],
                 entry = list(model = source, fingerprint = native_fingerprint(source), compiled = nm)),
            class = "mp_compiled")
}

#' @export
print.mp_compiled <- function(x, ...) {
  cat(sprintf("<mp_compiled> a %s model compiled: %s trees, %s nodes, %s MiB\n",
              class(x$model)[1L], format(x$trees, big.mark = ","), format(x$nodes, big.mark = ","),
              format(round(x$bytes / 2^20, 1), nsmall = 1)))
  invisible(x)
}

# The part of a model that identical() on the R object does not see: NULL
# for models that are plain R data (ranger, randomForest, gbm), the content
# of a booster outside R (methods in R/native_boost.R and
# R/native_lightgbm.R), or NA when it cannot be read (the model is then not
# cached).
native_fingerprint <- function(model) UseMethod("native_fingerprint")

#' @exportS3Method
#' @noRd
native_fingerprint.default <- function(model) {
  if (is.environment(model)) NA else NULL
}
