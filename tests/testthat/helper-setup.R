# A setup of all rows of X (see R/setup.R) for tests of the executor:
# model, predict function (NULL: the model's own) and memory budget in MiB.
test_setup <- function(model, predict_function, X, memory_budget = 256, threads = 1L) {
  inputs <- setup_inputs(model, X, predict_function, NULL, NULL, threads, memory_budget,
                         rlang::current_env())
  new_setup(inputs, seq_len(nrow(X)))
}
