# print, summary and as.data.frame for mp_profile results.

profile_title <- function(type) {
  switch(type,
    partial = "partial-dependence",
    conditional = "local-dependence",
    accumulated = "accumulated-local"
  )
}

#' Print, summarise and convert profiles
#'
#' @param x,object An `mp_profile` result of [model_profile()].
#' @param n Number of rows of `agr_profiles` to show.
#' @param what `"agr_profiles"` (the profiles) or `"cp_profiles"` (the ICE
#'   curves).
#' @param row.names,optional Ignored; for compatibility with the generic.
#' @param ... Ignored.
#' @returns `print()` returns `x` invisibly; `summary()` a data frame of class
#'   `summary_mp_profile` with one row per variable and profile label (one
#'   per subgroup with `groups`) (grid size, range of the
#'   grid, minimum, maximum and range of the profile, number of grid points
#'   without support, and the fewest background rows near a grid point,
#'   `min_rows`, from `_support_`), ordered by the profile's range, largest
#'   first;
#'   `as.data.frame()` the requested data frame.
#' @examples
#' fit <- lm(mpg ~ wt + hp, data = mtcars)
#' pd <- model_profile(fit, mtcars[c("wt", "hp")])
#' print(pd, n = 3)
#' summary(pd)
#' head(as.data.frame(pd, what = "cp_profiles"))
#' @name mp_profile-methods
NULL

#' @rdname mp_profile-methods
#' @export
print.mp_profile <- function(x, n = 6, ...) {
  method <- if (x$type == "partial") "" else paste0(" (", x$method, ")")
  cli::cat_line(
    "<mp_profile> ", profile_title(x$type), " profiles", method,
    " of ", length(x$variables), " variable", if (length(x$variables) != 1) "s",
    " for ", encodeString(x$label, quote = "\"")
  )
  cli::cat_line(
    "  variables: ", paste(x$variables, collapse = ", ")
  )
  rows <- if (x$N < x$n_data) paste0(x$N, " of ", x$n_data) else paste0("all ", x$N)
  cli::cat_line(
    "  background rows: ", rows,
    "; predictions: ", format(x$n_predictions, big.mark = ","),
    "; threads: ", x$threads,
    if (identical(x$engine, "native")) "; native engine"
  )
  if (length(x$class)) {
    cli::cat_line("  class", if (length(x$class) > 1L) "es", ": ", paste(x$class, collapse = ", "))
  }
  if (!is.null(x$weights)) {
    cli::cat_line("  case weights: ", format(sum(x$weights), digits = 6), " in total")
  }
  if (!is.null(x$groups)) {
    cli::cat_line("  subgroups of ", x$groups$column, ": ",
                  paste0(x$groups$levels, " (", x$groups$sizes, " rows)", collapse = ", "))
  }
  if (length(x$intervals) && !is.list(x$intervals)) {
    cli::cat_line("  intervals (K): ", paste0(names(x$intervals), " = ", x$intervals, collapse = ", "))
  }
  if (length(x$bandwidth)) {
    cli::cat_line("  bandwidth: ", paste0(names(x$bandwidth), " = ", format(x$bandwidth, digits = 4), collapse = ", "))
  }
  if (!is.null(x$cp_profiles)) {
    cli::cat_line("  ICE curves: ", format(nrow(x$cp_profiles), big.mark = ","), " rows in $cp_profiles")
  }
  cli::cat_line("First rows of $agr_profiles:")
  print(utils::head(x$agr_profiles, n), row.names = FALSE)
  invisible(x)
}

#' @rdname mp_profile-methods
#' @export
summary.mp_profile <- function(object, ...) {
  a <- object$agr_profiles
  keys <- unique(a[c("_vname_", "_label_")])
  out <- do.call(rbind, lapply(seq_len(nrow(keys)), function(k) {
    v <- keys$`_vname_`[k]
    d <- a[a$`_vname_` == v & a$`_label_` == keys$`_label_`[k], ]
    xr <- if (is.numeric(d$`_x_`)) range(d$`_x_`) else c(NA, NA)
    yr <- suppressWarnings(range(d$`_yhat_`, na.rm = TRUE))
    data.frame(
      variable = v, label = keys$`_label_`[k], points = nrow(d),
      x_min = xr[1], x_max = xr[2],
      yhat_min = yr[1], yhat_max = yr[2], yhat_range = yr[2] - yr[1],
      no_support = sum(is.na(d$`_yhat_`)),
      min_rows = if (is.null(d$`_support_`)) NA_integer_ else min(d$`_support_`),
      stringsAsFactors = FALSE
    )
  }))
  out <- out[order(-out$yhat_range), , drop = FALSE]
  rownames(out) <- NULL
  attr(out, "type") <- object$type
  class(out) <- c("summary_mp_profile", "data.frame")
  out
}

#' @export
print.summary_mp_profile <- function(x, ...) {
  cli::cat_line("Summary of ", profile_title(attr(x, "type")), " profiles (largest range first):")
  print(structure(x, class = "data.frame"), row.names = FALSE, digits = 4)
  invisible(x)
}

#' @rdname mp_profile-methods
#' @export
as.data.frame.mp_profile <- function(x, row.names = NULL, optional = FALSE, ...,
                                     what = c("agr_profiles", "cp_profiles")) {
  what <- match.arg(what)
  out <- x[[what]]
  if (is.null(out)) {
    cli::cli_abort("This result has no ICE curves: they are kept for partial dependence and the kernel methods, when they fit in {.arg memory_budget}.")
  }
  out
}
