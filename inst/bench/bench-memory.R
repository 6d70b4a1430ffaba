# Peak memory of model_profile() on many rows against its memory budget.
#
#   Rscript inst/bench/bench-memory.R [rows ...] [--out FILE]
#
# Each case runs in a fresh R process: the data (10 numeric columns) and a
# model fitted on 5,000 of its rows are made, garbage is collected, the
# peak resident size is reset (Linux: /proc/self/clear_refs), and one
# model_profile() call on all rows (N = NULL, keep_ice = FALSE, 3
# variables, the default memory_budget of 256 MiB) is timed. The peak
# above that loaded state is compared with the bar: the budget plus the
# result's size (object.size(), which counts the observed columns the
# result shares with the data). Cases: lm (linear engine for PD, predict()
# otherwise) and a 50-tree ranger forest (native engine), each with PD,
# interval AL and kernel LD. Default rows: 1e6 and 1e7.
args <- commandArgs(TRUE)
status_mib <- function(field) {
  s <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep(paste0("^", field, ":"), s, value = TRUE))) / 1024
}

run_case <- function(n, family, type, method) {
  suppressMessages(library(modelprofiles))
  set.seed(1)
  d <- as.data.frame(matrix(stats::runif(n * 10), n, 10, dimnames = list(NULL, paste0("x", 1:10))))
  small <- d[1:5000, ]
  small$y <- small$x1 + 2 * small$x2 * small$x3 + stats::rnorm(5000, sd = 0.1)
  m <- if (family == "lm") stats::lm(y ~ ., small) else {
    ranger::ranger(y ~ ., small, num.trees = 50, num.threads = 1, seed = 1)
  }
  gc()
  gc()
  cat("5", file = "/proc/self/clear_refs")
  rss0 <- status_mib("VmRSS")
  t0 <- proc.time()[[3]]
  r <- model_profile(m, d, N = NULL, variables = c("x1", "x2", "x3"), type = type,
                     method = if (method != "-") method, keep_ice = FALSE, grid_points = 21)
  elapsed <- proc.time()[[3]] - t0
  peak <- status_mib("VmHWM") - rss0
  size <- as.numeric(utils::object.size(r)) / 2^20
  cat(sprintf("CASE\t%g\t%s\t%s\t%s\t%s\t%.0f\t%.1f\t%.0f\t%.1f\n", n, family, type, method,
              paste(unique(r$engine), collapse = ","), peak, size, 256 + size, elapsed))
}

if (length(args) && args[1] == "case") {
  run_case(as.numeric(args[2]), args[3], args[4], args[5])
  quit(save = "no")
}

out <- "inst/bench/results/bench-memory.txt"
if ("--out" %in% args) {
  out <- args[which(args == "--out") + 1L]
  args <- args[-c(which(args == "--out"), which(args == "--out") + 1L)]
}
rows <- if (length(args)) as.numeric(args) else c(1e6, 1e7)
cases <- expand.grid(type = c("partial", "accumulated", "conditional"), family = c("lm", "ranger"),
                     stringsAsFactors = FALSE)
self <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
lines <- character()
for (n in rows) {
  for (i in seq_len(nrow(cases))) {
    method <- if (cases$type[i] == "conditional") "kernel" else "-"
    res <- system2(file.path(R.home("bin"), "Rscript"),
                   c(self, "case", format(n, scientific = FALSE), cases$family[i], cases$type[i], method),
                   stdout = TRUE, stderr = FALSE)
    line <- grep("^CASE", res, value = TRUE)
    if (!length(line)) line <- paste("CASE", n, cases$family[i], cases$type[i], method, "failed", sep = "\t")
    cat(line, "\n")
    lines <- c(lines, line)
  }
}
tab <- utils::read.delim(text = paste(sub("^CASE\t", "", lines), collapse = "\n"), header = FALSE,
                         col.names = c("rows", "model", "type", "method", "engine", "peak_MiB",
                                       "result_MiB", "bar_MiB", "seconds"))
tab$within <- tab$peak_MiB <= tab$bar_MiB
header <- c(
  "# bench-memory.R: peak resident memory of one model_profile() call above the loaded state",
  "# (data of 10 numeric columns, model, gc), N = NULL, keep_ice = FALSE, 3 variables, grid_points = 21,",
  "# memory_budget = 256 MiB; bar = budget + the result's object.size() (which counts the observed",
  sprintf("# columns it shares with the data). %s; R %s; load average %s", format(Sys.Date()),
          getRversion(), paste(readLines("/proc/loadavg"), collapse = " "))
)
dir.create(dirname(out), showWarnings = FALSE, recursive = TRUE)
options(width = 200)
writeLines(c(header, utils::capture.output(print(tab, row.names = FALSE))), out)
cat(readLines(out), sep = "\n")
