# Compute reference ALE values with Apley's ALEPlot package and write them as
# R literals to tests/testthat/helper-aleplot-reference.R.
#
# ALEPlot is archived on CRAN; install it with
#   install.packages("yaImpute")   # from the repositories R is configured with
#     (or apt-get install r-cran-yaimpute where that Debian package exists)
#   install.packages(paste0(getOption("repos")[[1]], "/src/contrib/Archive/ALEPlot/ALEPlot_1.1.tar.gz"),
#                    repos = NULL, type = "source")
#
# Run from the package root:  Rscript tools/aleplot-reference.R
# The generated helper does not call ALEPlot and does not need it installed.

stopifnot(requireNamespace("ALEPlot", quietly = TRUE))

out_file <- file.path("tests", "testthat", "helper-aleplot-reference.R")
if (!dir.exists(dirname(out_file))) {
  stop("run this script from the package root (tests/testthat not found)")
}

# Data-building code for each data set. Each block, evaluated in a fresh
# environment, defines X, X.model and pred.fun. The same text is written as a
# comment above each case in the generated file so tests can rebuild the data.
setups <- list(
  table184 = c(
    "X <- data.frame(x1 = c(-1, -0.71, -0.43, -0.14, 0.14, 0.43, 0.71, 1)); X$x2 <- X$x1",
    "X.model <- NULL",
    "pred.fun <- function(X.model, newdata) (newdata$x1 + 1) * newdata$x2"
  ),
  synthetic = c(
    "set.seed(20201); n <- 300; x1 <- runif(n); x2 <- x1 + rnorm(n, sd = 0.2); x3 <- round(rnorm(n), 1); X <- data.frame(x1, x2, x3)",
    "X.model <- NULL",
    "pred.fun <- function(X.model, newdata) newdata$x1 * newdata$x2 + 2 * sin(3 * newdata$x3) + newdata$x2^2"
  ),
  mtcars = c(
    "fit <- lm(mpg ~ wt * hp + qsec, data = mtcars); X <- mtcars[c(\"wt\", \"hp\", \"qsec\")]",
    "X.model <- fit",
    "pred.fun <- function(X.model, newdata) as.numeric(predict(X.model, newdata))"
  ),
  factor = c(
    "set.seed(7); n <- 200; g <- factor(sample(c(\"a\",\"b\",\"c\",\"d\"), n, replace = TRUE)); x1 <- rnorm(n) + as.integer(g); x2 <- runif(n); X <- data.frame(x1, g, x2)",
    "X.model <- NULL",
    "pred.fun <- function(X.model, newdata) newdata$x1 * (as.integer(newdata$g)) + newdata$x2"
  ),
  # Five levels whose order by similarity (of x1 and the factor h) is not
  # their alphabetical order; an interaction of g with x2.
  factor5 = c(
    "set.seed(8); n <- 250; g <- factor(sample(c(\"a\",\"b\",\"c\",\"d\",\"e\"), n, replace = TRUE)); s <- c(a = 3, b = 1, c = 5, d = 2, e = 4)[as.character(g)]; x1 <- rnorm(n) + s; h <- factor(ifelse(runif(n) < s / 6, \"u\", \"v\")); x2 <- runif(n); X <- data.frame(x1, g, h, x2)",
    "X.model <- NULL",
    "pred.fun <- function(X.model, newdata) newdata$x1 * as.integer(newdata$g) + (newdata$h == \"u\") * newdata$x2 + as.integer(newdata$g) * newdata$x2^2"
  ),
  # Correlated, clustered pair with empty cells in the 2-D grid.
  sparse = c(
    "set.seed(9); n <- 150; x1 <- c(runif(n / 2, 0, 1), runif(n / 2, 2, 3)); x2 <- x1 + rnorm(n, sd = 0.3); x3 <- rnorm(n); X <- data.frame(x1, x2, x3)",
    "X.model <- NULL",
    "pred.fun <- function(X.model, newdata) newdata$x1 * newdata$x2^2 + sin(newdata$x1 * newdata$x3) + newdata$x3"
  )
)

# Case list: name, data set, J, K.
cases <- list()
add_case <- function(name, data, J, K) {
  cases[[name]] <<- list(data = data, J = as.numeric(J), K = as.numeric(K))
}
add_case("table184", "table184", 1, 4)
for (J in 1:3) for (K in c(10, 40)) {
  add_case(sprintf("synthetic_J%d_K%d", J, K), "synthetic", J, K)
}
for (J in 1:3) for (K in c(5, 40)) {
  add_case(sprintf("mtcars_J%d_K%d", J, K), "mtcars", J, K)
}
add_case("synthetic2d_J12_K10", "synthetic", c(1, 2), 10)
add_case("synthetic2d_J13_K8", "synthetic", c(1, 3), 8)
add_case("factor_J2_K10", "factor", 2, 10)
add_case("factor2d_J21_K10", "factor", c(2, 1), 10)
add_case("factor5_J2_K10", "factor5", 2, 10)
add_case("factor5_J3_K10", "factor5", 3, 10)
add_case("factor52d_J24_K6", "factor5", c(2, 4), 6)
add_case("factor52d_J21_K12", "factor5", c(2, 1), 12)
add_case("sparse2d_J12_K10", "sparse", c(1, 2), 10)
add_case("sparse2d_J13_K15", "sparse", c(1, 3), 15)
add_case("sparse2d_J21_K7", "sparse", c(2, 1), 7)

run_case <- function(cs) {
  env <- new.env(parent = globalenv())
  eval(parse(text = setups[[cs$data]]), envir = env)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  res <- ALEPlot::ALEPlot(env$X, env$X.model, env$pred.fun, J = cs$J, K = cs$K)
  if (!is.list(res) || is.null(res$f.values)) {
    stop("ALEPlot returned no f.values: ", paste(utils::capture.output(print(res)), collapse = " "))
  }
  is_fac <- is.factor(env$X[[cs$J[1]]])
  if (length(cs$J) == 1) {
    x <- res$x.values
    if (is_fac) x <- as.character(x)
    list(J = cs$J, K = cs$K, x = x, f = res$f.values)
  } else {
    x1 <- res$x.values[[1]]
    if (is_fac) x1 <- as.character(x1)
    list(J = cs$J, K = cs$K, x1 = x1, x2 = res$x.values[[2]], f = res$f.values)
  }
}

results <- list()
failures <- list()
for (nm in names(cases)) {
  r <- tryCatch(run_case(cases[[nm]]), error = function(e) e)
  if (inherits(r, "error")) {
    failures[[nm]] <- conditionMessage(r)
    message("case ", nm, " FAILED: ", conditionMessage(r))
  } else {
    results[[nm]] <- r
  }
}

# "digits17" makes doubles round-trip exactly; the other options keep names,
# dim/dimnames and integer/NA types so the literal is identical() to the value.
lit <- function(x) {
  ctrl <- c("keepNA", "keepInteger", "niceNames", "showAttributes", "digits17")
  paste(deparse(x, control = ctrl, width.cutoff = 80L), collapse = "\n")
}

lines <- c(
  sprintf(
    "# Generated by tools/aleplot-reference.R with ALEPlot %s (CRAN archive), R %s, on %s; do not edit by hand",
    as.character(utils::packageVersion("ALEPlot")), as.character(getRversion()), format(Sys.Date())
  ),
  "#",
  "# aleplot_ref[[case]] holds the values returned by",
  "#   ALEPlot::ALEPlot(X, X.model, pred.fun, J = J, K = K)",
  "# 1-D: list(J, K, x = x.values, f = f.values) (factor J: x = level names in ALEPlot's order)",
  "# 2-D: list(J, K, x1 = x.values[[1]], x2 = x.values[[2]], f = f.values matrix)",
  "# K is the K passed to ALEPlot (ignored by ALEPlot for factor J).",
  "# The comment above each case is the exact R code that builds X, X.model and pred.fun.",
  "",
  "aleplot_ref <- list("
)
nms <- names(results)
for (i in seq_along(nms)) {
  nm <- nms[i]
  cs <- cases[[nm]]
  lines <- c(
    lines,
    sprintf("  # %s: J = %s, K = %s; data and prediction function:", nm, lit(cs$J), lit(cs$K)),
    paste0("  #   ", setups[[cs$data]]),
    paste0("  ", nm, " = ", lit(results[[nm]]), if (i < length(nms)) "," else "")
  )
}
lines <- c(lines, ")", "",
  "# The code that builds each data set (X, X.model, pred.fun), as evaluated above.",
  paste0("aleplot_setup <- ", lit(lapply(setups, paste, collapse = "\n"))))
if (length(failures)) {
  lines <- c(lines, "", "# Cases where ALEPlot failed (not included above):",
             sprintf("#   %s: %s", names(failures), unlist(failures)))
}

writeLines(lines, out_file)
message("wrote ", out_file, " (", length(results), " cases, ", length(failures), " failed)")

# Round-trip check: the literals must reproduce the computed values exactly.
chk <- new.env()
sys.source(out_file, envir = chk)
stopifnot(identical(chk$aleplot_ref, results))
message("round-trip check passed: identical()")
