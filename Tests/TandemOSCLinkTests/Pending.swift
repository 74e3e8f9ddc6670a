// placeholder until osc-link's tests merge
