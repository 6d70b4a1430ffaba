# CPU time of each help page's examples, each in a fresh R session with the
# package attached (the first ggplot2 draw, ~0.6 s, included), as R CMD
# check would see a page that comes first. Every page must stay under
# 1.5 s of CPU (issue 33: a busy machine turned 3.1 s into a check NOTE).
#
#   R CMD INSTALL --library=<lib> . && R_LIBS=<lib> Rscript tools/example-times.R
# Prints the pages, slowest first; exits with status 1 when one is over.
limit <- 1.5
man <- file.path("man")
dir <- tempfile("examples")
dir.create(dir)
runner <- file.path(dir, "run.R")
writeLines(c(
  "suppressPackageStartupMessages(library(modelprofiles))",
  "grDevices::pdf(NULL)",
  "set.seed(1)",
  "t <- system.time(source(commandArgs(TRUE)[1], local = new.env(), print.eval = TRUE))",
  "cat(t[['user.self']] + t[['sys.self']] + t[['user.child']] + t[['sys.child']], t[['elapsed']], '\\n', file = stderr())"
), runner)
rows <- list()
for (rd in sort(list.files(man, pattern = "[.]Rd$", full.names = TRUE))) {
  ex <- file.path(dir, sub("[.]Rd$", ".R", basename(rd)))
  tools::Rd2ex(rd, ex, commentDontrun = TRUE, commentDonttest = FALSE)
  if (!file.exists(ex)) next
  out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", runner, ex), stdout = FALSE, stderr = TRUE)
  t <- as.numeric(strsplit(trimws(utils::tail(out, 1L)), " +")[[1L]])
  rows[[length(rows) + 1L]] <- data.frame(page = basename(rd), cpu = t[1], elapsed = t[2])
}
res <- do.call(rbind, rows)
res <- res[order(-res$cpu), ]
print(res, row.names = FALSE, digits = 3)
if (any(res$cpu > limit)) {
  message("Over ", limit, " s of CPU: ", paste(res$page[res$cpu > limit], collapse = ", "))
  quit(status = 1)
}
