#' @keywords internal
#' @useDynLib modelprofiles, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom RcppParallel RcppParallelLibs
#' @importFrom rlang .data :=
#' @importFrom utils head str tail
"_PACKAGE"
