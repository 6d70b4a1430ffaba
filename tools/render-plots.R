# Render every kind of plot to PNG, to look at them as a user would.
# Rscript tools/render-plots.R [outdir]
library(modelprofiles)
library(ggplot2)
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args)) args[1] else "plots"
dir.create(out, showWarnings = FALSE, recursive = TRUE)
save <- function(p, name, w = 8, h = 5.5) {
  ggsave(file.path(out, paste0(name, ".png")), p, width = w, height = h, dpi = 100)
}
data("Boston", package = "MASS")
fit <- ranger::ranger(medv ~ ., data = Boston, num.trees = 200, num.threads = 2, seed = 1)
X <- Boston[setdiff(names(Boston), "medv")]
X$chas <- factor(X$chas, labels = c("no", "yes"))
fit2 <- ranger::ranger(x = X, y = Boston$medv, num.trees = 200, num.threads = 2, seed = 1)
lmfit <- lm(medv ~ lstat * rm + dis + nox + chas, data = cbind(X, medv = Boston$medv))
v <- c("lstat", "rm", "dis", "nox")
pd <- model_profile(fit2, X, variables = v, label = "random forest")
ld <- model_profile(fit2, X, variables = v, type = "conditional", label = "random forest")
al <- model_profile(fit2, X, variables = v, type = "accumulated", label = "random forest")
pdl <- model_profile(lmfit, X, variables = v, label = "linear model")
save(plot(pd), "01-pd")
save(plot(pd, ld, al), "02-pd-ld-al")
save(plot(pd, pdl), "03-two-models")
save(plot(pd, geom = "profiles"), "04-ice")
save(plot(pd, geom = "profiles", center = "first"), "05-ice-centred")
save(plot(pd, geom = "points", variables = c("lstat", "rm")), "06-ice-points", h = 4)
pdc <- model_profile(fit2, X, variables = "chas", label = "random forest")
pdcl <- model_profile(lmfit, X, variables = "chas", label = "linear model")
save(plot(pdc, pdcl), "07-factor", w = 5, h = 4)
save(plot(pdc, geom = "profiles"), "08-factor-ice", w = 5, h = 4)
save(plot(pd, ld, al, variables = "rm", title = "Rooms", subtitle = "three profiles") +
       scale_colour_brewer(palette = "Dark2"), "09-options", w = 6, h = 4.5)
pdg <- model_profile(fit2, X, variables = c("lstat", "rm"), groups = "chas", min_group_size = 5,
                     label = "random forest")
save(plot(pdg), "10-subgroups", h = 4)
alg <- model_profile(fit2, X, variables = c("lstat", "rm"), groups = "nox", type = "accumulated",
                     label = "random forest")
save(plot(alg), "11-subgroups-al", h = 4)
pd2 <- model_profile_2d(fit2, X, variables = c("lstat", "rm"), grid_points = 25, label = "random forest")
save(plot(pd2), "12-pd-2d-tiles", w = 6.5, h = 5)
save(plot(pd2, geom = "contour"), "13-pd-2d-contour", w = 6.5, h = 5)
al2 <- model_profile_2d(fit2, X, variables = c("lstat", "rm"), type = "accumulated", intervals = 12,
                        label = "random forest")
save(plot(al2), "14-al-2d", w = 6.5, h = 5)
# A multiclass probability forest: one profile per class.
rf3 <- ranger::ranger(Species ~ ., data = iris, num.trees = 200, probability = TRUE,
                      num.threads = 2, seed = 1)
pm <- model_profile(rf3, iris[1:4], variables = c("Petal.Length", "Petal.Width"), label = "forest")
save(plot(pm), "15-multiclass", h = 4)
# A factor's AL profile: levels in the order of their similarity.
lm3 <- lm(Sepal.Length ~ Species * Petal.Length + Sepal.Width, data = iris)
save(plot(model_profile(lm3, iris[c("Species", "Petal.Length", "Sepal.Width")], variables = "Species",
                        label = "linear model"),
          model_profile(lm3, iris[c("Species", "Petal.Length", "Sepal.Width")], variables = "Species",
                        type = "accumulated", label = "linear model")),
     "16-factor-al", w = 5, h = 4)
# Interactions: H-statistics, slopes by subgroup, ICE clusters.
h2 <- h_statistic(fit2, X[1:300, ], N = NULL, label = "random forest")
save(plot(h2), "17-h-statistic", w = 7, h = 4)
source(system.file("examples", "subscriber.R", package = "modelprofiles"))
test <- subscribers[subscribers$split == "test", ]
train <- subscribers[subscribers$split == "train", ]
sv <- c("household", "satisfaction")
hi <- hidden_interactions(
  subscriber_tree, test, predict_function = function(m, d) predict(m, subscriber_features(d)),
  variables = sv, variable_splits = lapply(train[sv], profile_grid, grid_points = 5, variable_splits_type = "distinct"),
  groups = list(region = test$region_name,
                tariff = cut(test$mean_consumption, c(-Inf, 10, 25, Inf), labels = c("10", "25", "40")))
)
save(plot(hi), "18-hidden-interactions", w = 7, h = 4)
pk <- model_profile(fit2, X, variables = c("lstat", "rm"), k = 3, N = 300, seed = 1, label = "random forest")
save(plot(pk, geom = "profiles"), "19-ice-clusters", h = 4)
# Derivative ICE curves and centring at given values.
save(plot(pd, geom = "derivatives", variables = c("lstat", "rm", "dis")), "20-ice-derivatives", h = 4.5)
save(plot(pd, geom = "profiles", variables = c("lstat", "rm"), center = c(lstat = 10, rm = 6)),
     "21-ice-centred-values", h = 4)
# Bands named by kind and level: the forest's per-tree spread and the
# analytic band of its PD; profiles that coincide (two engines) stay
# visible; 2-D bands; regions of a variable's effect.
pdt <- model_profile(fit2, X, variables = c("lstat", "rm"), bands = "trees", label = "random forest")
pda <- model_profile(fit2, X, variables = c("lstat", "rm"), bands = "analytic", label = "random forest")
save(plot(pdt, pda), "32-bands", h = 4.5)
save(plot(model_profile(fit2, X, variables = c("lstat", "rm"), label = "random forest"),
          model_profile(fit2, X, variables = c("lstat", "rm"), engine = "predict", label = "random forest")),
     "33-coinciding", h = 4.5)
pd2b <- model_profile_2d(fit2, X, variables = c("lstat", "rm"), grid_points = 15, bands = "analytic",
                         label = "random forest")
save(plot(pd2b), "34-pd-2d-bands", w = 7, h = 4.5)
set.seed(1)
rd <- data.frame(x1 = runif(1000, -1, 1), x2 = runif(1000, -1, 1), x3 = runif(1000, -1, 1))
rd$y <- rd$x1 * sign(rd$x2) + rd$x3 + rnorm(1000, 0, 0.1)
rrf <- ranger::ranger(y ~ ., data = rd, num.trees = 100, num.threads = 2, seed = 1)
save(plot(find_regions(rrf, rd[1:3], label = "random forest")), "35-regions", w = 7, h = 5)
# The datasets DALEX, iml and pdp users know. Diamonds: factors of 5-8
# levels, a price model.
set.seed(1)
dm <- as.data.frame(ggplot2::diamonds[sample(nrow(ggplot2::diamonds), 3000), ])
dfit <- ranger::ranger(price ~ carat + cut + color + clarity + depth + table, data = dm,
                       num.trees = 100, num.threads = 2, seed = 1)
dX <- dm[c("carat", "cut", "color", "clarity", "depth", "table")]
save(plot(model_profile(dfit, dX, variables = c("cut", "color", "clarity"))), "22-diamonds-factors", h = 4)
save(plot(model_profile(dfit, dX, variables = c("cut", "color", "clarity")), geom = "bars"),
     "23-diamonds-bars", h = 4)
save(plot(model_profile(dfit, dX, variables = c("carat", "depth", "table"))), "24-diamonds-numeric", h = 4)
if (requireNamespace("DALEX", quietly = TRUE)) {
  # apartments: a DALEX explainer of a linear model, DALEX's and ours.
  ap <- DALEX::apartments
  afit <- lm(m2.price ~ ., data = ap)
  ex <- DALEX::explain(afit, data = ap[-1], y = ap$m2.price, verbose = FALSE)
  apd <- model_profile(ex)
  save(plot(apd), "25-apartments", h = 5)
  set.seed(1)
  save(plot(apd, DALEX::model_profile(ex, variables = c("construction.year", "surface"), N = 100),
            variables = c("construction.year", "surface")), "26-apartments-dalex", h = 4)
  # titanic_imputed: a classifier's probability by age, fare and class.
  ti <- DALEX::titanic_imputed
  tfit <- glm(survived ~ gender + age + class + fare + sibsp, data = ti, family = binomial)
  save(plot(model_profile(tfit, ti, variables = c("age", "fare")),
            model_profile(tfit, ti, variables = c("age", "fare"), type = "accumulated")),
       "27-titanic", h = 4)
  save(plot(model_profile(tfit, ti, variables = "class")), "28-titanic-class", w = 6, h = 4)
  # HR: three classes.
  hr <- DALEX::HR
  hfit <- ranger::ranger(status ~ ., data = hr, num.trees = 100, probability = TRUE, num.threads = 2, seed = 1)
  save(plot(model_profile(hfit, hr, variables = c("age", "hours"))), "29-hr-classes", h = 4)
}
# airquality: rows with missing values, a gam.
aq <- airquality
gfit <- mgcv::gam(Ozone ~ s(Temp) + s(Wind) + Month, data = aq)
save(plot(model_profile(gfit, aq[!is.na(aq$Ozone), ])), "30-airquality-gam", h = 4)
save(plot(model_profile_2d(gfit, aq[complete.cases(aq), ], variables = c("Temp", "Wind"),
                           type = "accumulated", intervals = 8)), "31-airquality-al-2d", w = 6.5, h = 5)
