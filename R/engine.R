# The engine as a plan: which engine makes a request's predictions, decided
# here alone (estimators ask request_engine(), never the setup's engines):
# - "native": the setup's compiled tree ensemble (R/engine_native.R), for
#   a request that allows it (`native`);
# - "linear": the setup's linear predictor (R/engine_linear.R), for the ICE
#   curves of one of its variables (`cols`, NULL for any) of a request
#   that allows them (`linear`);
# - "predict": the predict function, through the executor's stacked rows
#   (R/executor.R).
# A setup has at most one of the two engines (new_setup()).
request_engine <- function(setup, native = TRUE, linear = FALSE, cols = NULL) {
  if (native && !is.null(setup$native)) return("native")
  if (linear && !is.null(setup$linear) &&
      (is.null(cols) || (length(cols) == 1L && names(setup$data)[cols] %in% setup$linear$variables))) {
    return("linear")
  }
  "predict"
}

# Does a request with these permissions use the native or linear engine?
uses_direct <- function(setup, native = TRUE, linear = FALSE) {
  request_engine(setup, native, linear) != "predict"
}

# Are the linear engine's curves the predictions themselves (an identity
# link: intercept and slope, with no table of the curves)?
linear_identity <- function(setup) {
  isTRUE(setup$linear$identity)
}
