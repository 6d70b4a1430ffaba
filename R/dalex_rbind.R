# DALEX interoperability, continued (R/dalex.R): rbind() of DALEX's tables
# with ours.

# DALEX's plot method first: plot(dalex_result, ours) --------------------
#
# DALEX's plot.model_profile() hands every result it is given (ours count,
# being of class "model_profile" too) to ingredients' plot methods, which
# bind their rows with rbind(): of `$agr_profiles` (geom "aggregates"), or
# of the objects themselves ("profiles", "points"). These methods, for the
# first table's class, bind ours as DALEX's tables (as_dalex()): DALEX's
# columns and kind of variable, and a label that says which package drew
# it when both carry the same. Tables of DALEX only are bound by
# rbind.data.frame(), as without this package.

#' @method rbind aggregated_profiles_explainer
#' @export
rbind.aggregated_profiles_explainer <- function(..., deparse.level = 1) {
  dalex_rbind(list(...), "agr", function() rbind.data.frame(..., deparse.level = deparse.level))
}

#' @method rbind ceteris_paribus_explainer
#' @export
rbind.ceteris_paribus_explainer <- function(..., deparse.level = 1) {
  dalex_rbind(list(...), "cp", function() rbind.data.frame(..., deparse.level = deparse.level))
}

dalex_rbind <- function(args, what, plain) {
  ours <- vapply(args, is_our_table, logical(1))
  if (!any(ours)) return(plain())
  # Named arguments (stringsAsFactors, make.row.names) are rbind's own.
  nms <- names(args) %||% rep("", length(args))
  tables <- args[!nzchar(nms) | ours]
  ours <- ours[!nzchar(nms) | ours]
  ref <- Find(is.data.frame, tables[!ours])
  if (is.null(ref)) return(plain())
  x1 <- if (what == "agr") ref$`_x_` else ref[[as.character(ref$`_vname_`[1L])]]
  kind <- if (is.numeric(x1)) "numerical" else "categorical"
  taken <- unique(unlist(lapply(tables[!ours], function(t) as.character(t$`_label_`))))
  known <- unique(unlist(lapply(tables[!ours], function(t) as.character(t$`_vname_`))))
  converted <- lapply(seq_along(tables), function(i) {
    if (!ours[i]) return(tables[[i]])
    t <- our_dalex_table(tables[[i]], what, kind, known)
    if (is.null(t) || !nrow(t)) return(NULL)
    clash <- as.character(t$`_label_`) %in% taken
    t$`_label_` <- ifelse(clash, paste0(t$`_label_`, ", modelprofiles"), as.character(t$`_label_`))
    # The first table's columns (DALEX's cp tables have every column of the
    # data; ours the profiled ones).
    for (col in setdiff(names(ref), names(t))) t[[col]] <- rep(NA, nrow(t))
    t <- as.data.frame(structure(t, class = "data.frame"))[names(ref)]
    for (col in names(ref)) {
      if (is.factor(ref[[col]]) && !is.factor(t[[col]])) t[[col]] <- as.character(t[[col]])
    }
    t
  })
  do.call(rbind.data.frame, Filter(Negate(is.null), converted))
}

# A modelprofiles result, or its `agr_profiles` (which DALEX takes out of
# it): the `_support_` column, in a table that is not DALEX's.
is_our_table <- function(x) {
  inherits(x, "mp_profile") ||
    (is.data.frame(x) && !inherits(x, c("aggregated_profiles_explainer", "ceteris_paribus_explainer")) &&
       all(c("_vname_", "_label_", "_x_", "_yhat_", "_support_") %in% names(x)))
}

# Our result (or its agr_profiles) as DALEX's table of kind `what` ("agr"
# or "cp"), of the variables of `kind` ("numerical" or "categorical");
# `known`: the variables of DALEX's tables, which are of that kind.
our_dalex_table <- function(x, what, kind, known = character()) {
  if (inherits(x, "mp_profile")) {
    if (!length(dalex_variables(x, kind))) return(NULL)
    d <- as_dalex(x, variable_type = kind)
    return(if (what == "agr") d$agr_profiles else d$cp_profiles)
  }
  if (what != "agr") return(NULL)
  # agr_profiles alone: a variable is of DALEX's kind when DALEX's tables
  # have it; else numerical when its `_x_` are numbers.
  a <- as.data.frame(x, stringsAsFactors = FALSE)
  v <- as.character(a$`_vname_`)
  num <- vapply(split(a$`_x_`, v), function(z) {
    is.numeric(z) || !anyNA(suppressWarnings(as.numeric(as.character(z))))
  }, logical(1))
  num[names(num) %in% known] <- kind == "numerical"
  dalex_agr(a[v %in% names(num)[if (kind == "numerical") num else !num], , drop = FALSE], kind)
}
