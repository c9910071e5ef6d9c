module consumer {
    requires org.pthread4j;
}
