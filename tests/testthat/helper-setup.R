# A setup of all rows of X (see R/setup.R) for tests of the executor:
# model, predict function (NULL: the model's own) and memory budget in MiB.
test_setup <- function(model, predict_function, X, memory_budget = 256, threads = 1L) {
  inputs <- setup_inputs(model, X, predict_function, NULL, NULL, threads, memory_budget,
                         rlang::current_env())
  new_setup(inputs, seq_len(nrow(X)))
}

# Rows of four column types and a response, for tests of the executor.
parallel_data <- function(n = 300, seed = 1) {
  set.seed(seed)
  X <- data.frame(a = rnorm(n), b = runif(n), f = factor(sample(letters[1:4], n, TRUE)),
                  i = sample(1:9, n, TRUE))
  y <- X$a * X$b + (X$f == "b") + X$i / 3 + rnorm(n)
  list(X = X, y = y)
}
