#pragma once
// `catena simulate FILE [options]`: argv as given to main (argv[1] == "simulate"). Returns the
// exit status: 0 success, 1 failed run or invalid input, 2 bad command line.
int runSimulate(int argc, char** argv);
