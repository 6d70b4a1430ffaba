library(testthat)
library(modelprofiles)

test_check("modelprofiles")
