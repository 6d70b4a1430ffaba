# Quick start: PD, LD and AL profiles of a random forest on the Boston housing
# data (MASS), one chart written to a PNG file and a summary table printed.
# Run from the package source: Rscript inst/scripts/quickstart.R [out.png]
library(modelprofiles)
options(width = 110)

args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args)) args[1] else "modelprofiles-quickstart.png"

data("Boston", package = "MASS")
set.seed(1)
fit <- ranger::ranger(medv ~ ., data = Boston, num.trees = 300, num.threads = 2, seed = 1)
X <- Boston[setdiff(names(Boston), "medv")]
vars <- c("lstat", "rm", "dis", "nox")

pd <- model_profile(fit, X, variables = vars, type = "partial", label = "random forest")
ld <- model_profile(fit, X, variables = vars, type = "conditional", label = "random forest")
al <- model_profile(fit, X, variables = vars, type = "accumulated", label = "random forest")

print(pd)
cat("\n")
print(summary(al))
cat("\nPD, LD and AL side by side (first grid points of lstat):\n")
cmp <- data.frame(
  lstat = pd$grids$lstat[1:5],
  PD = pd$agr_profiles$`_yhat_`[1:5],
  LD = ld$agr_profiles$`_yhat_`[1:5]
)
print(cmp, row.names = FALSE, digits = 4)

p <- plot(pd, ld, al) +
  ggplot2::ggtitle("Random forest on the Boston housing data",
                   "Partial-dependence, local-dependence and accumulated-local profiles")
ggplot2::ggsave(out, p, width = 9, height = 6.5, dpi = 110)
cat("\nPlot written to", normalizePath(out), "\n")
